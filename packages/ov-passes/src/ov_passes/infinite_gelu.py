"""``gelu`` of +inf as PyTorch computes it.

OpenVINO's ``Gelu`` in erf mode, which the frontend makes of ``gelu(x)``,
gives NaN for +inf in every precision (OpenVINO 2026.4, CPU plugin, f16, bf16
and f32 inputs alike, whatever the inference precision hint), where PyTorch's
float16 kernel gives inf (``x * 0.5 * (1 + erf(inf))``). Its tanh mode gives
inf, as PyTorch's ``approximate="tanh"`` does, and -inf is NaN in both.

PyTorch's bfloat16 and float32 kernels give NaN for +inf in a contiguous
tensor of more than one element, as OpenVINO does, and inf for a lone element
(measured on PyTorch 2.13, AVX2 and AVX-512 alike); the delegate takes no
float64. So a float16 ``gelu(x)``, and one of a single element in any dtype,
becomes ``where(x == inf, x, gelu(x))``; the others are left as they are,
which spares the models that use ``gelu`` a second reader of its input.
"""

from __future__ import annotations

import torch
from torch.fx.experimental.symbolic_shapes import guard_or_false

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, redirect_users
from ov_spec import op_name

aten = torch.ops.aten

_GELU = "aten.gelu.default"


def _erf_mode(node: torch.fx.Node) -> bool:
    approximate = node.args[1] if len(node.args) > 1 else node.kwargs.get("approximate", "none")
    return approximate == "none"


@declare(Stage.REWRITES)
def gelu_of_infinity_as_pytorch(graph_module: torch.fx.GraphModule) -> bool:
    """Make an erf-mode ``gelu`` return inf for +inf where PyTorch's does (float16, or one element).

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) != _GELU or not _erf_mode(node):
            continue
        x = node.args[0]
        value = x.meta.get("val") if isinstance(x, torch.fx.Node) else None
        if not isinstance(value, torch.Tensor):
            continue
        if value.dtype != torch.float16 and not guard_or_false(value.numel() == 1):
            continue
        with graph.inserting_before(node.next):
            infinite = call_function(graph, aten.eq.Scalar, (x, float("inf")))
            selected = call_function(graph, aten.where.self, (infinite, x, node))
        redirect_users(node, selected)
        changed = True
    return changed
