"""Floor division of integers, exactly as PyTorch rounds it.

OpenVINO's CPU plugin rounds an integer Divide with floor rounding toward
zero (``-7 // 3`` gives -2, PyTorch -3). Its truncating division is right for
every sign (like all its integer division, exact up to 2**24 in magnitude),
and multiply and compare are exact, so the floor quotient is built from them::

    q = trunc_div(a, b)
    a // b = q - ((q * b != a) and (a < 0) != (b < 0))
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node
from ov_spec import op_name

FLOOR_DIVISION_OPS = frozenset(
    {"aten.div.Tensor_mode", "aten.div.Scalar_mode", "aten.floor_divide.default"}
)

aten = torch.ops.aten


def _is_integer_floor_division(node: torch.fx.Node) -> bool:
    name = op_name(node)
    if name not in FLOOR_DIVISION_OPS:
        return False
    if name != "aten.floor_divide.default" and node.kwargs.get("rounding_mode") != "floor":
        return False
    value = node.meta.get("val")
    return (
        isinstance(value, torch.Tensor)
        and not value.is_floating_point()
        and value.dtype != torch.bool
    )


def _signs_differ(graph: torch.fx.Graph, dividend: torch.fx.Node, divisor: object) -> torch.fx.Node:
    if isinstance(divisor, torch.fx.Node):
        negative_dividend = call_function(graph, aten.lt.Scalar, (dividend, 0))
        negative_divisor = call_function(graph, aten.lt.Scalar, (divisor, 0))
        return call_function(graph, aten.ne.Tensor, (negative_dividend, negative_divisor))
    # A Python number: its sign is known now.
    return call_function(graph, aten.gt.Scalar if divisor < 0 else aten.lt.Scalar, (dividend, 0))  # type: ignore[operator]


@declare(Stage.REWRITES)
def integer_floor_division_by_truncation(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite each integer floor division with truncating division and a correction.

    Returns:
        True when a division was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if not _is_integer_floor_division(node):
            continue
        dividend, divisor = node.args[0], node.args[1]
        assert isinstance(dividend, torch.fx.Node)
        dtype = node.meta["val"].dtype
        with graph.inserting_before(node):
            truncated = call_function(
                graph, aten.div.Tensor_mode, (dividend, divisor), {"rounding_mode": "trunc"}
            )
            product = call_function(graph, aten.mul.Tensor, (truncated, divisor))
            inexact = call_function(graph, aten.ne.Tensor, (product, dividend))
            round_down = call_function(
                graph, aten.logical_and.default, (inexact, _signs_differ(graph, dividend, divisor))
            )
            correction = call_function(
                graph, aten._to_copy.default, (round_down,), {"dtype": dtype}
            )
            quotient = call_function(graph, aten.sub.Tensor, (truncated, correction))
        replace_node(node, quotient)
        changed = True
    return changed
