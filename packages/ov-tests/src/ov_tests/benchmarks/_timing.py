"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable


def median_seconds(work: Callable[[], object], repeats: int, warmup: int = 1) -> float:
    """Run ``work`` ``warmup`` times untimed, then ``repeats`` times; return the median in seconds."""
    for _ in range(warmup):
        work()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report(line: str = "") -> None:
    """Write one line of a benchmark's report to standard output."""
    sys.stdout.write(line + "\n")
