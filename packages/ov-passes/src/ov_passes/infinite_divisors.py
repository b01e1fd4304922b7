"""Float ``fmod`` and ``remainder`` by an infinite divisor, as PyTorch computes them.

OpenVINO's ``FloorMod`` and ``Mod`` give NaN for a finite dividend and an
infinite divisor, where C's ``fmod`` gives the dividend: ``fmod(2, inf)`` is 2.
PyTorch's ``remainder`` then adds the divisor when the dividend is nonzero and
its sign differs from the divisor's, so ``remainder(-2, inf)`` is ``inf`` and
``remainder(2, inf)`` is 2. Each float ``fmod`` or ``remainder`` of two tensors
takes that value where the divisor is infinite and the dividend finite.
"""

from __future__ import annotations

import torch

from ov_passes.pipeline import call_function, op_name, redirect_users

aten = torch.ops.aten

_REWRITTEN = frozenset({"aten.fmod.Tensor", "aten.remainder.Tensor"})


def _float_result(node: torch.fx.Node) -> bool:
    value = node.meta.get("val")
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def fmod_and_remainder_by_infinity(graph_module: torch.fx.GraphModule) -> bool:
    """Give float ``fmod``/``remainder`` of tensors PyTorch's result where the divisor is infinite.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) not in _REWRITTEN or not _float_result(node):
            continue
        dividend, divisor = node.args[0], node.args[1]
        if not isinstance(dividend, torch.fx.Node) or not isinstance(divisor, torch.fx.Node):
            continue
        with graph.inserting_after(node):
            # x - x is 0 exactly for a finite x, NaN for NaN and infinities.
            difference = call_function(graph, aten.sub.Tensor, (dividend, dividend))
            finite = call_function(graph, aten.eq.Scalar, (difference, 0))
            infinite = call_function(graph, aten.isinf.default, (divisor,))
            taken = call_function(graph, aten.bitwise_and.Tensor, (finite, infinite))
            value: torch.fx.Node = dividend
            if op_name(node) == "aten.remainder.Tensor":
                negative = call_function(graph, aten.lt.Scalar, (dividend, 0))
                below = call_function(graph, aten.lt.Scalar, (divisor, 0))
                signs = call_function(graph, aten.ne.Tensor, (negative, below))
                nonzero = call_function(graph, aten.ne.Scalar, (dividend, 0))
                wraps = call_function(graph, aten.bitwise_and.Tensor, (signs, nonzero))
                value = call_function(graph, aten.where.self, (wraps, divisor, dividend))
            replacement = call_function(graph, aten.where.self, (taken, value, node))
        redirect_users(node, replacement)
        replacement.meta = {**node.meta, "val": replacement.meta["val"]}
        changed = True
    return changed
