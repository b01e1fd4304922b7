"""int8 programs: this backend against its float32, OpenVINO itself and XNNPACK, side by side.

For ResNet-18 (seeded weights, batch 1, calibrated on four seeded batches)
and all-MiniLM-L6-v2 (its real weights, calibrated on
the five demo sentences), quantized with :func:`ov_runtime.default_quantizer`
as :func:`ov_runtime.quantize` does. In one process, taking turns in blocks
of calls:

- this backend on the float32 model, on the int8 program with its weights
  folded (``convert_pt2e``'s default) and unfolded;
- OpenVINO's own ``convert_model`` and ``compile_model`` on the unfolded
  program (it refuses the folded one), float32 inference precision and no
  dynamic quantization, as this backend compiles;
- ExecuTorch's XNNPACK backend on the folded program.

Each int8 variant's output is compared with the quantized eager model's:
cosine similarity, max abs error, and that error in quantization steps of the
output where the output is quantized.
"""

from __future__ import annotations

import argparse
import copy
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import openvino as ov
import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge_transform_and_lower
from torch.utils._pytree import tree_leaves

from ov_runtime import default_quantizer, lower
from ov_tests.benchmarks._timing import (
    executorch_call,
    interleaved_seconds,
    percentiles_ms,
    report,
)
from ov_tests.models import SENTENCES, minilm, resnet18

Inputs = tuple[Any, ...]


@dataclass
class Variant:
    """One way to run a model: its call and its first output."""

    call: Callable[[], Sequence[Any]]
    int8: bool


def _images(inputs: Inputs) -> list[Inputs]:
    return [
        (torch.randn(inputs[0].shape, generator=torch.Generator().manual_seed(seed)),)
        for seed in range(4)
    ]


MODELS: dict[str, tuple[Callable[[], tuple[torch.nn.Module, Inputs]], Callable[..., Any]]] = {
    "ResNet-18": (resnet18, _images),
    "all-MiniLM-L6-v2": (functools.partial(minilm, SENTENCES), lambda inputs: [inputs]),
}
"""Each model's builder and its calibration inputs (from the example inputs)."""


def _quantized(
    model: torch.nn.Module, inputs: Inputs, calibration: list[Inputs]
) -> tuple[torch.fx.GraphModule, torch.fx.GraphModule]:
    """Return the model quantized with the default quantizer: weights folded, and not."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    quantizer, _ = default_quantizer()
    prepared = prepare_pt2e(torch.export.export(model, inputs).module(), quantizer)
    with torch.no_grad():
        for batch in calibration:
            prepared(*batch)
    unfolded = convert_pt2e(copy.deepcopy(prepared), fold_quantize=False)
    return convert_pt2e(prepared), unfolded


def _openvino(model: torch.nn.Module, inputs: Inputs) -> Callable[[], Sequence[Any]]:
    properties = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
    converted = ov.convert_model(torch.export.export(model, inputs))
    request = ov.Core().compile_model(converted, "CPU", properties).create_infer_request()
    arrays = [t.numpy() for t in inputs]

    def call() -> Sequence[Any]:
        return [torch.from_numpy(value) for value in request.infer(arrays).values()]

    return call


def _variants(model: torch.nn.Module, inputs: Inputs, calibration: list[Inputs]) -> dict[str, Any]:
    """Each variant, or the reason it cannot run; with the quantized eager model first."""
    folded, unfolded = _quantized(model, inputs, calibration)
    variants: dict[str, Any] = {"quantized eager": folded}
    makers: dict[str, tuple[Callable[[], Callable[[], Sequence[Any]]], bool]] = {
        "this backend, float32": (
            lambda: executorch_call(lower(model, inputs).buffer, inputs),
            False,
        ),
        "this backend, int8": (lambda: executorch_call(lower(folded, inputs).buffer, inputs), True),
        "this backend, int8 unfolded": (
            lambda: executorch_call(lower(unfolded, inputs).buffer, inputs),
            True,
        ),
        "OpenVINO, int8": (lambda: _openvino(unfolded, inputs), True),
        "XNNPACK, int8": (
            lambda: executorch_call(
                to_edge_transform_and_lower(
                    torch.export.export(folded, inputs), partitioner=[XnnpackPartitioner()]
                )
                .toexecutorch_call()
                .buffer,
                inputs,
            ),
            True,
        ),
    }
    for name, (make, int8) in makers.items():
        try:
            variants[name] = Variant(make(), int8)
        except Exception as error:  # a baseline that cannot run is reported, not fatal
            variants[name] = f"cannot run: {type(error).__name__}: {str(error)[:80]}"
    return variants


def _output_step(model: torch.fx.GraphModule) -> float | None:
    """The quantization step of the model's output, if a dequantize makes it."""
    first = tree_leaves(model.graph.output_node().args[0])[0]
    if isinstance(first, torch.fx.Node) and "dequantize" in str(first.target):
        step: Any = first.args[1]
        return float(step)
    return None


def _accuracy(output: torch.Tensor, expected: torch.Tensor, step: float | None) -> str:
    cosine = torch.nn.functional.cosine_similarity(
        output.flatten().double(), expected.flatten().double(), dim=0
    ).item()
    error = (output - expected).abs().max().item()
    steps = f"{error / step:.1f}" if step else "-"
    return f"{cosine:.5f} | {error:.4f} | {steps}"


def measure(name: str, rounds: int) -> None:
    """Build, quantize and lower one model of :data:`MODELS`, then time and report its variants."""
    build, calibrate = MODELS[name]
    model, inputs = build()
    variants = _variants(model, inputs, calibrate(inputs))
    eager = variants.pop("quantized eager")
    with torch.no_grad():
        expected = tree_leaves(eager(*inputs))[0]
    step = _output_step(eager)
    runnable = {key: value for key, value in variants.items() if isinstance(value, Variant)}
    times = interleaved_seconds({key: value.call for key, value in runnable.items()}, rounds)
    medians = {key: percentiles_ms(value)[1] for key, value in times.items()}
    report(
        f"\n{name}, {rounds * 3} calls each, interleaved; errors against the quantized eager model"
    )
    report(
        "| variant | p10 ms | median ms | p90 ms | vs this float32 | vs OpenVINO int8 "
        "| cosine | max abs error | in output steps |"
    )
    report("|---|---|---|---|---|---|---|---|---|")
    for key, value in variants.items():
        if isinstance(value, str):
            report(f"| {key} | {value} | | | | | | | |")
            continue
        low, median, high = percentiles_ms(times[key])
        ratios = [
            f"{median / medians[base]:.2f}x" if base in medians else "-"
            for base in ("this backend, float32", "OpenVINO, int8")
        ]
        accuracy = (
            _accuracy(tree_leaves(value.call())[0], expected, step) if value.int8 else "- | - | -"
        )
        report(
            f"| {key} | {low:.2f} | {median:.2f} | {high:.2f} | {' | '.join(ratios)} | {accuracy} |"
        )


def main() -> None:
    """Measure and print one table per model."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20, help="turns of 3 calls per variant")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated")
    args = parser.parse_args()
    for name in args.models.split(","):
        measure(name, args.rounds)


if __name__ == "__main__":
    main()
