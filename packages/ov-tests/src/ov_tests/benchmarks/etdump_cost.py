"""What ETDump profiling costs a call, and that it costs nothing without an event tracer.

One ``.pte`` per model is loaded three times and called in turns: without an event tracer
(how programs run), with ExecuTorch's ETDump tracer (``enable_etdump=True``: ExecuTorch's
events and the delegate's ``OpenVINO infer``), and with the tracer and OpenVINO's per-layer
counters (the ``perf_count`` option: one more event per executed OpenVINO layer). Beside
them, the same IR called through OpenVINO's C API alone, the floor of a call. Without a
tracer the delegate's only profiling work is a null check of the tracer pointer, so its
median should sit as close to the C API's as it does in ``ov-executorch bench``.

    uv run python -m ov_tests.benchmarks.etdump_cost [--rounds 300]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable

import torch

from ov_runtime import load_program, lower
from ov_runtime.facade.inspection import delegate_models
from ov_tests.benchmarks._timing import interleaved_seconds, report
from ov_tests.benchmarks.c_api import c_api_call
from ov_tests.models import Add, Mlp

_CALLS_PER_WRITE = 500
"""Calls between writes of the ETDump, which keeps each call's events until written."""


def _call(
    pte: bytes, inputs: tuple[torch.Tensor, ...], options: dict[str, object] | None, etdump: bool
) -> Callable[[], None]:
    program = load_program(pte, options, enable_etdump=etdump)
    method = program.load_method("forward")
    calls = 0

    def call() -> None:
        nonlocal calls
        method.execute(inputs)
        calls += 1
        if etdump and calls % _CALLS_PER_WRITE == 0:
            program.write_etdump("/dev/null")

    return call


def main() -> None:
    """Print each model's median call per variant and its ratio to the call without a tracer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300, help="turns of 3 calls (default 300)")
    rounds = parser.parse_args().rounds
    torch.manual_seed(0)
    report("| model | variant | median µs | ratio to no tracer |")
    report("|---|---|---|---|")
    models: list[tuple[str, torch.nn.Module, tuple[torch.Tensor, ...]]] = [
        ("add", Add(), (torch.randn(1, 16), torch.randn(1, 16))),
        ("mlp", Mlp(), (torch.randn(8, 32),)),
    ]
    for name, model, inputs in models:
        pte = lower(model.eval(), inputs).buffer
        ((payload, ir),) = delegate_models(pte)
        calls = {
            "no tracer": _call(pte, inputs, None, etdump=False),
            "ETDump": _call(pte, inputs, None, etdump=True),
            "ETDump + perf_count": _call(pte, inputs, {"perf_count": True}, etdump=True),
            "OpenVINO C API": c_api_call(ir, [x.numpy() for x in inputs], dict(payload.properties)),
        }
        times = interleaved_seconds(calls, rounds)
        base = statistics.median(times["no tracer"])
        for variant, measured in times.items():
            median = statistics.median(measured)
            report(f"| {name} | {variant} | {median * 1e6:.1f} | {median / base:.3f} |")


if __name__ == "__main__":
    main()
