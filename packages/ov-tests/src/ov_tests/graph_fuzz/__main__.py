"""``python -m ov_tests.graph_fuzz --graphs 5000 --seed 0 [--jobs 2] [--out DIR]``."""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ov_tests.graph_fuzz.run import FAILING, Report, run


def _part(arguments: tuple[int, int, int, Path | None, bool, bool]) -> Report:
    graphs, seed, start, out, shrink, finite = arguments
    return run(graphs, seed, start=start, reproducers=out, shrink_failures=shrink, finite=finite)


def main(argv: list[str] | None = None) -> int:
    """Run the fuzzer; print the counts and failures; exit 1 when a graph failed."""
    parser = argparse.ArgumentParser(prog="python -m ov_tests.graph_fuzz", description=__doc__)
    parser.add_argument("--graphs", type=int, default=300, help="graphs to draw (300)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (0)")
    parser.add_argument("--start", type=int, default=0, help="index of the first graph (0)")
    parser.add_argument("--jobs", type=int, default=1, help="processes to split the run over (1)")
    parser.add_argument("--out", type=Path, help="folder to write each failure to as a pytest file")
    parser.add_argument("--no-shrink", action="store_true", help="report failures unshrunk")
    parser.add_argument("--finite", action="store_true", help="draw no NaN or infinities")
    options = parser.parse_args(argv)
    jobs = max(1, min(options.jobs, options.graphs))
    share, extra = divmod(options.graphs, jobs)
    parts, start = [], options.start
    for job in range(jobs):
        count = share + (job < extra)
        parts.append(
            (count, options.seed, start, options.out, not options.no_shrink, options.finite)
        )
        start += count
    if jobs == 1:
        reports = [_part(parts[0])]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            reports = list(pool.map(_part, parts))
    report = reports[0]
    for other in reports[1:]:
        report.statuses.update(other.statuses)
        report.families.update(other.families)
        report.failing_families.update(other.failing_families)
        report.delegated += other.delegated
        report.failures += other.failures
    print(report.summary())
    return 1 if any(report.statuses[status] for status in FAILING) else 0


if __name__ == "__main__":
    sys.exit(main())
