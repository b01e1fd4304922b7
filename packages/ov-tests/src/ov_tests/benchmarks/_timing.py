"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ov_runtime import load_program


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


def interleaved_seconds(
    calls: Mapping[str, Callable[[], object]], rounds: int, block: int = 3, warmup: int = 3
) -> dict[str, list[float]]:
    """Time each call ``rounds * block`` times, taking turns in blocks of ``block`` calls.

    Turns spread the machine's changing load over every call alike, so ratios
    between them hold where medians of separate runs would drift.

    Returns:
        Each call's times in seconds, in the order measured.
    """
    for call in calls.values():
        for _ in range(warmup):
            call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            for _ in range(block):
                start = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - start)
    return times


def percentiles_ms(times: list[float]) -> tuple[float, float, float]:
    """Return the 10th percentile, the median and the 90th percentile of ``times``, in ms."""
    deciles = statistics.quantiles(times, n=10)
    return deciles[0] * 1e3, statistics.median(times) * 1e3, deciles[-1] * 1e3


def executorch_call(pte: bytes, inputs: Sequence[Any]) -> Callable[[], Sequence[Any]]:
    """Load ``forward`` of ``pte`` through this backend's runtime; return a call on ``inputs``."""
    program = load_program(pte)
    method = program.load_method("forward")
    assert method is not None
    arguments = list(inputs)

    def call() -> Sequence[Any]:
        assert program is not None  # the method reads the program's data: keep it alive
        outputs: Sequence[Any] = method.execute(arguments)
        return outputs

    return call


def report(line: str = "") -> None:
    """Write one line of a benchmark's report to standard output."""
    sys.stdout.write(line + "\n")
