"""``exp`` of float32 and bfloat16 up to the largest finite result, as PyTorch computes it.

OpenVINO's ``Exp`` on the CPU plugin (2026.4.1; f32 and bf16, static and
dynamic shapes) gives inf from x = 88.38 on, where the result stays finite up
to log(float32's largest number) = 88.72: ``exp(88.5)`` is 2.72e38 in PyTorch
and inf in OpenVINO, and a bfloat16 88.5 is a value a model can hold. float16
overflows at 11.09, far below, so it is left as it is.

So ``exp(x)`` becomes ``where(x > 88, exp(x - 88) * exp(88), exp(x))``: the
branch taken below 88 is the plain ``Exp``, unchanged, and above it the product
of two results is within a unit or two in the last place of the exact one, and
inf where PyTorch's is. NaN fails ``x > 88`` and stays NaN.
"""

from __future__ import annotations

import math

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, redirect_users
from ov_spec import op_name

aten = torch.ops.aten

_EXP = "aten.exp.default"
_SPLIT = 88.0
"""Below OpenVINO's overflow point (88.38), above which the exponent is split."""
_REWRITTEN_DTYPES = frozenset({torch.float32, torch.bfloat16})


@declare(Stage.REWRITES)
def exp_near_overflow_as_pytorch(graph_module: torch.fx.GraphModule) -> bool:
    """Give ``exp`` of float32 and bfloat16 results its finite value up to 88.72, as PyTorch does.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) != _EXP:
            continue
        x, value = node.args[0], node.meta.get("val")
        if not isinstance(value, torch.Tensor) or value.dtype not in _REWRITTEN_DTYPES:
            continue
        with graph.inserting_before(node.next):
            large = call_function(graph, aten.gt.Scalar, (x, _SPLIT))
            shifted = call_function(graph, aten.sub.Tensor, (x, _SPLIT))
            split = call_function(graph, aten.exp.default, (shifted,))
            scaled = call_function(graph, aten.mul.Tensor, (split, math.exp(_SPLIT)))
            selected = call_function(graph, aten.where.self, (large, scaled, node))
        redirect_users(node, selected)
        changed = True
    return changed
