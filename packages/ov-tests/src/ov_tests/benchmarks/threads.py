"""Python threads and programs: is the GIL free while a program runs, and do two threads scale?

Two copies of a 4-layer MLP (width 512, batch 32), each compiled for one
OpenVINO thread that is not pinned to a core (``inference_num_threads=1``,
``enable_cpu_pinning=false``: pinned, both would share the first core), run through this backend's
``LoadedMethod.execute`` (which releases the GIL) and through ExecuTorch's own
Python bindings (which hold it). For each, it prints:

* how far a pure-Python loop in another thread gets while the calls run, as a
  share of how far it gets alone (near 0: the calls hold the GIL);
* calls per second from one thread, from two at once, and the speed-up.

OpenVINO's own Python API (which releases the GIL too) on the same model
shows what OpenVINO itself reaches with two threads in one process.
"""

from __future__ import annotations

import argparse
import functools
import threading
import time
from collections.abc import Callable

import openvino as ov
import torch
from executorch.runtime import Runtime

from ov_runtime import compile_specs, load_program, lower
from ov_tests.benchmarks._timing import report


def _mlp_seeded(width: int) -> torch.nn.Module:
    torch.manual_seed(0)
    layers: list[torch.nn.Module] = []
    for _ in range(4):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).eval()


def _throughput(calls: list[Callable[[], object]], repeats: int) -> float:
    """Calls per second when each of ``calls`` runs ``repeats`` times in its own thread."""
    for call in calls:
        call()  # warm-up
    threads = [
        threading.Thread(target=lambda c=call: [c() for _ in range(repeats)]) for call in calls
    ]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(calls) * repeats / (time.perf_counter() - start)


def _python_progress(calls: Callable[[], object] | None, seconds: float) -> int:
    """Iterations a Python loop makes in ``seconds`` while ``calls`` runs in another thread."""
    stop = threading.Event()

    def keep_calling() -> None:
        while calls is not None and not stop.is_set():
            calls()

    worker = threading.Thread(target=keep_calling)
    worker.start()
    count, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        count += 1
    stop.set()
    worker.join()
    return count


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=600)
    parser.add_argument("--width", type=int, default=512)
    args = parser.parse_args()

    x = torch.randn(32, args.width, generator=torch.Generator().manual_seed(1))
    specs = compile_specs(inference_num_threads=1, enable_cpu_pinning=False)
    pte = lower(_mlp_seeded(args.width), (x,), specs).buffer

    exported = torch.export.export(_mlp_seeded(args.width), (x,))
    properties = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": "1"}
    properties["ENABLE_CPU_PINNING"] = "NO"
    requests = [
        ov.Core()
        .compile_model(ov.convert_model(exported), "CPU", properties)
        .create_infer_request()
        for _ in range(2)
    ]
    ours = [load_program(pte).load_method("forward") for _ in range(2)]
    bindings = [Runtime.get().load_program(pte) for _ in range(2)]
    theirs = [program.load_method("forward") for program in bindings]
    variants: dict[str, list[Callable[[], object]]] = {
        "this backend's run (GIL released)": [functools.partial(m.execute, [x]) for m in ours],
        "ExecuTorch's Python bindings": [functools.partial(m.execute, [x]) for m in theirs],
        "OpenVINO's own Python API": [functools.partial(r.infer, [x.numpy()]) for r in requests],
    }
    report(f"MLP 4 x {args.width}, batch 32, one OpenVINO thread per program, {args.repeats} calls")
    alone = _python_progress(None, 1.0)
    report(f"{'':36} {'Python beside':>13} {'1 thread/s':>11} {'2 threads/s':>12} {'speed-up':>9}")
    for name, calls in variants.items():
        beside = _python_progress(calls[0], 1.0) / alone
        one = _throughput(calls[:1], args.repeats)
        two = _throughput(calls, args.repeats)
        report(f"{name:36} {beside:13.0%} {one:11.0f} {two:12.0f} {two / one:9.2f}")


if __name__ == "__main__":
    main()
