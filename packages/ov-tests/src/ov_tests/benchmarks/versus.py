"""This backend against OpenVINO itself, ExecuTorch's XNNPACK backend and eager PyTorch.

For ResNet-18 (seeded weights, batch 1, 224 x 224) and all-MiniLM-L6-v2 (five
sentences), measured side by side in one run, each in float32: the median
latency of a call and its ratio to OpenVINO's own ``compile_model`` on the
same exported program.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

import openvino as ov
import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge_transform_and_lower

from ov_runtime import lower
from ov_tests.benchmarks._timing import executorch_call, median_seconds, report
from ov_tests.models import SENTENCES, minilm, resnet18


def _variants(
    model: torch.nn.Module, inputs: tuple[Any, ...]
) -> dict[str, Callable[[], object] | str]:
    """Each variant's call, or why it cannot run."""
    exported = torch.export.export(model, inputs)
    compiled = ov.Core().compile_model(
        ov.convert_model(exported), "CPU", {"INFERENCE_PRECISION_HINT": "f32"}
    )
    request = compiled.create_infer_request()
    arrays = [t.numpy() for t in inputs]

    def eager() -> object:
        with torch.no_grad():
            return model(*inputs)

    variants: dict[str, Callable[[], object] | str] = {
        "OpenVINO compile_model": functools.partial(request.infer, arrays),
        "this backend (.pte)": executorch_call(lower(exported).buffer, inputs),
    }
    try:
        xnnpack = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
        variants["ExecuTorch XNNPACK (.pte)"] = executorch_call(
            xnnpack.to_executorch().buffer, inputs
        )
    except Exception as error:
        variants["ExecuTorch XNNPACK (.pte)"] = f"does not lower: {type(error).__name__}"
    variants["PyTorch eager"] = eager
    return variants


def main() -> None:
    """Measure and print one table per model."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    models: dict[str, Callable[[], tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]] = {
        "ResNet-18": resnet18,
        "all-MiniLM-L6-v2": functools.partial(minilm, SENTENCES),
    }
    for name, build in models.items():
        model, inputs = build()
        times = {
            variant: call if isinstance(call, str) else median_seconds(call, args.repeats, warmup=3)
            for variant, call in _variants(model, tuple(inputs)).items()
        }
        baseline = times["OpenVINO compile_model"]
        assert isinstance(baseline, float)
        report(f"\n{name}, float32, median of {args.repeats} calls")
        report(f"{'':28} {'median ms':>10} {'vs OpenVINO':>12}")
        for variant, seconds in times.items():
            if isinstance(seconds, str):
                report(f"{variant:28} {seconds}")
            else:
                report(f"{variant:28} {seconds * 1e3:10.2f} {seconds / baseline:12.2f}")


if __name__ == "__main__":
    main()
