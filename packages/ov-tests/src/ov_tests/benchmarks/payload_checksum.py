"""What verifying the payload checksum costs when a program loads.

For ResNet-18 and all-MiniLM-L6-v2: the median time of loading the method
(reading, checking and compiling every delegate, no model cache) and the
median time of the runtime's checksum over the same payloads, and their ratio.
The runtime verifies while OpenVINO compiles, so the ratio bounds what the
checksum adds to a load from above.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

from ov_convert import MAGIC
from ov_convert.payload import HEADER_SIZE
from ov_runtime import load_program, lower
from ov_runtime.native import native_checksum
from ov_tests.benchmarks._timing import median_seconds, report
from ov_tests.models import SENTENCES, minilm, resnet18


def _payload_bodies(pte: bytes) -> list[bytes]:
    """The checksummed bytes (everything after the header) of each payload in ``pte``."""
    bodies = []
    start = pte.find(MAGIC)
    while start >= 0:
        weights_offset = int.from_bytes(pte[start + 64 : start + 72], "little")
        weights_size = int.from_bytes(pte[start + 72 : start + 80], "little")
        bodies.append(pte[start + HEADER_SIZE : start + weights_offset + weights_size])
        start = pte.find(MAGIC, start + 1)
    return bodies


def _checksums(bodies: list[bytes]) -> list[int]:
    return [native_checksum(body) for body in bodies]


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
    report(f"{'model':18} {'payload MB':>10} {'load ms':>8} {'checksum ms':>12} {'share':>7}")
    for name, build in models.items():
        model, inputs = build()
        pte = lower(model, inputs).buffer
        bodies = _payload_bodies(pte)
        load = median_seconds(functools.partial(_load, pte), args.repeats)
        checksum = median_seconds(functools.partial(_checksums, bodies), args.repeats)
        size = sum(map(len, bodies)) / 1e6
        report(
            f"{name:18} {size:10.1f} {load * 1e3:8.1f} {checksum * 1e3:12.2f} "
            f"{checksum / load:7.1%}"
        )


if __name__ == "__main__":
    main()
