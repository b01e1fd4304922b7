"""What keeping int64 exact costs: the model suite with and without ``allow_int64_narrowing``.

By default the partitioner keeps int64 work whose values it cannot prove to
fit in 32 bits on ExecuTorch's CPU kernels (``ov_partition.ranges``);
``allow_int64_narrowing=true`` delegates it, as before. For MiniLM, ResNet-18,
ExecuTorch's Llama and transformers' Llama (tiny, seeded), this prints the
delegated and CPU nodes of both, the nodes kept for int64, and the
per-call medians (interleaved calls) with their ratio.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import torch

from ov_runtime import LoweredProgram, compile_specs, lower
from ov_tests.benchmarks._timing import executorch_call, interleaved_seconds, report
from ov_tests.llm import (
    export_decoder,
    export_executorch_llama,
    tiny_decoder,
    tiny_executorch_llama,
)
from ov_tests.models import resnet18

KEPT_FOR_INT64 = "OpenVINO's CPU plugin computes int64 in 32 bits"
"""Words of the reason the partitioner gives for a node kept on the CPU for int64."""


def _minilm() -> tuple[torch.export.ExportedProgram, tuple[Any, ...]]:
    from ov_runtime.cli.minilm import minilm

    model, inputs = minilm(["int64 exactness costs", "how much time per call?"])
    return torch.export.export(model, inputs), inputs


def _resnet18() -> tuple[torch.export.ExportedProgram, tuple[Any, ...]]:
    model, inputs = resnet18()
    return torch.export.export(model, inputs), inputs


def _executorch_llama() -> tuple[torch.export.ExportedProgram, tuple[Any, ...]]:
    program = export_executorch_llama(tiny_executorch_llama())
    return program, (torch.tensor([[5]]), torch.tensor([3]))


def _transformers_llama() -> tuple[torch.export.ExportedProgram, tuple[Any, ...]]:
    program = export_decoder(tiny_decoder("llama"))
    return program, (torch.tensor([[5]]), torch.tensor([3]))


MODELS: dict[str, Callable[[], tuple[torch.export.ExportedProgram, tuple[Any, ...]]]] = {
    "MiniLM": _minilm,
    "ResNet-18": _resnet18,
    "ExecuTorch Llama": _executorch_llama,
    "transformers Llama": _transformers_llama,
}
"""The model suite: each builds an exported program and the inputs of one call (a decode step for the LLMs)."""


def lower_both(
    build: Callable[[], tuple[torch.export.ExportedProgram, tuple[Any, ...]]],
) -> tuple[LoweredProgram, LoweredProgram, tuple[Any, ...]]:
    """Lower a model exactly (the default) and with ``allow_int64_narrowing=true``; with its inputs.

    Each lowering gets its own export: lowering consumes an exported program.
    """
    program, inputs = build()
    exact = lower(program)
    program, _ = build()
    narrowed = lower(program, compile_specs=compile_specs(allow_int64_narrowing=True))
    return exact, narrowed, inputs


def kept_for_int64(lowered: LoweredProgram) -> list[str]:
    """The nodes the partitioner kept on the CPU because their int64 values are not bounded."""
    return sorted(name for name, why in lowered.rejections.items() if KEPT_FOR_INT64 in why)


def _median_ms(times: Sequence[float]) -> float:
    return statistics.median(times) * 1e3


def main() -> None:
    """Lower each model both ways, time them and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    report(
        "| model | delegated nodes (exact / narrowed) | CPU nodes | kept for int64 | "
        "per call, exact / narrowed (ms) | ratio |"
    )
    report("|---|---|---|---|---|---|")
    for name, build in MODELS.items():
        exact, narrowed, inputs = lower_both(build)
        times = interleaved_seconds(
            {
                "exact": executorch_call(exact.buffer, inputs),
                "narrowed": executorch_call(narrowed.buffer, inputs),
            },
            args.rounds,
        )
        exact_ms, narrowed_ms = _median_ms(times["exact"]), _median_ms(times["narrowed"])
        report(
            f"| {name} | {exact.delegated_nodes} / {narrowed.delegated_nodes} | "
            f"{exact.cpu_nodes} / {narrowed.cpu_nodes} | {', '.join(kept_for_int64(exact)) or '-'} "
            f"| {exact_ms:.3f} / {narrowed_ms:.3f} | {exact_ms / narrowed_ms:.3f} |"
        )


if __name__ == "__main__":
    main()
