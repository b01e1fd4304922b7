"""Decompositions of ops ExecuTorch's edge checker rejects, into core ATen ops computing the same.

``to_edge`` refuses a program holding an op outside core ATen that has no
decomposition of its own (``aten.round.decimals``), before any partitioner
sees it. :data:`DECOMPOSITIONS` is a table for
``ExportedProgram.run_decompositions``, applied before lowering
(``ov_runtime.lower`` does), which turns each such op into core ATen ops that
OpenVINO and ExecuTorch's kernels both run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

aten = torch.ops.aten


def round_decimals(x: torch.Tensor, *, decimals: int = 0) -> torch.Tensor:
    """``torch.round(x, decimals=decimals)`` as PyTorch's kernel computes it.

    PyTorch scales by ``10**|decimals|`` in the tensor's own precision, rounds
    half to even, and scales back: multiply then divide for positive
    ``decimals``, divide then multiply for negative ones.
    """
    if decimals == 0:
        return torch.round(x)
    scale = float(10 ** abs(decimals))
    if decimals > 0:
        return torch.round(x * scale) / scale
    return torch.round(x / scale) * scale


DECOMPOSITIONS: dict[Any, Callable[..., Any]] = {aten.round.decimals: round_decimals}
"""Op overload to decomposition, for ``ExportedProgram.run_decompositions``."""


def needs_decompositions(program: torch.export.ExportedProgram) -> bool:
    """Whether ``program`` holds an op of :data:`DECOMPOSITIONS`."""
    return any(
        node.op == "call_function" and node.target in DECOMPOSITIONS
        for module in program.graph_module.modules()
        if isinstance(module, torch.fx.GraphModule)
        for node in module.graph.nodes
    )
