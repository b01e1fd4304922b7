"""What the runtime's checks of a payload cost when a program loads.

Before OpenVINO reads a byte of a delegate, the runtime verifies its layout,
checksum and flags, scans its XML (nesting depth, element count) and checks
its signature against the IR (``ov_runtime.native.payload_refusal`` runs
exactly these). For ResNet-18 and all-MiniLM-L6-v2: the median time of a
first load of the method (reading, checking and compiling every delegate, no
model cache), the median time of those checks over the same payloads, and
their share of the load. The checks run before the compile, so the share is
what they add.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

from ov_convert import MAGIC
from ov_convert.payload import payload_end
from ov_runtime import compile_specs, load_program, lower
from ov_runtime.native import payload_refusal
from ov_tests.benchmarks._timing import median_seconds, report
from ov_tests.models import SENTENCES, minilm, resnet18


def _payloads(pte: bytes) -> list[bytes]:
    """Each delegate payload in ``pte``."""
    payloads = []
    start = pte.find(MAGIC)
    while start >= 0:
        payloads.append(pte[start : payload_end(pte, start)])
        start = pte.find(MAGIC, start + 1)
    return payloads


def _check(payloads: list[bytes]) -> None:
    for payload in payloads:
        assert payload_refusal(payload) == ""


def _load(pte: bytes) -> None:
    program = load_program(pte)
    assert program.load_method("forward") is not None


def main() -> None:
    """Measure and print one line per model."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    models: dict[str, Callable[[], tuple[Any, Any]]] = {
        "ResNet-18": resnet18,
        "all-MiniLM-L6-v2": functools.partial(minilm, SENTENCES),
    }
    report(f"median of {args.repeats}; load = load_method, compiling every delegate (no cache)")
    report(f"{'model':18} {'payload MB':>10} {'load ms':>8} {'checks ms':>10} {'share':>7}")
    for name, build in models.items():
        model, inputs = build()
        pte = lower(model, inputs, compile_specs(cache_dir="none")).buffer
        payloads = _payloads(pte)
        load = median_seconds(functools.partial(_load, pte), args.repeats)
        checks = median_seconds(functools.partial(_check, payloads), args.repeats)
        size = sum(map(len, payloads)) / 1e6
        report(
            f"{name:18} {size:10.1f} {load * 1e3:8.1f} {checks * 1e3:10.2f} {checks / load:7.1%}"
        )


if __name__ == "__main__":
    main()
