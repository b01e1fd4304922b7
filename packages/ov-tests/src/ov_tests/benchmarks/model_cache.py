"""Loading a program with and without a warm OpenVINO model cache (``cache_dir``).

Each round lowers nothing: it loads the same ``.pte`` twice with a new, empty
cache folder, timing ``load_method`` (where the delegate compiles). Prints the
median first (cold) and second (warm) load and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from ov_runtime import compile_specs, load_program, lower
from ov_tests.benchmarks._timing import report
from ov_tests.models import resnet18


def _load_seconds(pte: bytes) -> float:
    start = time.perf_counter()
    method = load_program(pte).load_method("forward")
    assert method is not None
    return time.perf_counter() - start


def main() -> None:
    """Measure and print cold and warm load times."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    model, inputs = resnet18()
    cold, warm = [], []
    with tempfile.TemporaryDirectory() as root:
        for round_index in range(args.rounds):
            cache = f"{root}/cache{round_index}"
            pte = lower(model, inputs, compile_specs(cache_dir=cache)).buffer
            cold.append(_load_seconds(pte))
            warm.append(_load_seconds(pte))
    first, second = statistics.median(cold), statistics.median(warm)
    report(f"ResNet-18, median of {args.rounds} rounds, each with a new cache folder")
    report(f"first load (cold cache):  {first * 1e3:8.1f} ms")
    report(f"second load (warm cache): {second * 1e3:8.1f} ms")
    report(f"ratio warm / cold:        {second / first:8.2f}")


if __name__ == "__main__":
    main()
