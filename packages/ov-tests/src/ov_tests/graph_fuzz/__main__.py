"""``python -m ov_tests.graph_fuzz --graphs 5000 --seed 0 [--jobs 2] [--out DIR]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ov_tests.graph_fuzz.isolation import run_isolated
from ov_tests.graph_fuzz.run import FAILING


def main(argv: list[str] | None = None) -> int:
    """Run the fuzzer; print the counts and failures; exit 1 when a graph failed."""
    parser = argparse.ArgumentParser(prog="python -m ov_tests.graph_fuzz", description=__doc__)
    parser.add_argument("--graphs", type=int, default=300, help="graphs to draw (300)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (0)")
    parser.add_argument("--start", type=int, default=0, help="index of the first graph (0)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
    parser.add_argument("--out", type=Path, help="folder to write each failure to as a pytest file")
    parser.add_argument("--no-shrink", action="store_true", help="report failures unshrunk")
    parser.add_argument("--finite", action="store_true", help="draw no NaN or infinities")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds a graph may take (600)"
    )
    options = parser.parse_args(argv)
    report = run_isolated(
        options.graphs,
        options.seed,
        start=options.start,
        jobs=options.jobs,
        shrink_failures=not options.no_shrink,
        reproducers=options.out,
        finite=options.finite,
        timeout=options.timeout,
    )
    sys.stdout.write(report.summary() + "\n")
    return 1 if any(report.statuses[status] for status in FAILING) else 0


if __name__ == "__main__":
    sys.exit(main())
