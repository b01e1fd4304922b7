"""``python -m ov_tests.payload_fuzz``: fuzz and print the counts; exit 1 on any failure."""

import argparse
import sys
from pathlib import Path

from ov_tests.payload_fuzz import fuzz, programs
from ov_tests.payload_fuzz.run import child


def main() -> None:
    """Parse the arguments; run the fuzz, or one child's share of it."""
    parser = argparse.ArgumentParser(prog="python -m ov_tests.payload_fuzz", description=__doc__)
    parser.add_argument(
        "--mutations", type=int, default=2000, help="in all, shared by the programs"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="child processes at once")
    parser.add_argument("--programs", nargs="*", choices=sorted(programs()), help="default: all")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--program", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--last", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.program, args.first, args.last, args.seed)
        return
    report = fuzz(args.mutations, args.seed, jobs=args.jobs, names=args.programs)
    for key in sorted(report.counts):
        sys.stdout.write(f"{key}: {dict(report.counts[key])}\n")
    for failure in report.failures:
        sys.stdout.write(f"FAILED {failure}\n")
    sys.stdout.write(f"{report.total} mutations, {len(report.failures)} failures\n")
    sys.exit(1 if report.failures else 0)


if __name__ == "__main__":
    main()
