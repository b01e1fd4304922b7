"""Compare 32- and 64-bit integers through their difference.

OpenVINO's CPU plugin compares int32 (and int64, which it computes in 32
bits) in float32, so ``16,777,217 == 16,777,216`` is true there. Integer
subtraction is exact (it wraps like PyTorch's), and a difference keeps its
sign and its zero when converted to float32, so ``a == b`` becomes
``a - b == 0``, and likewise for ``!=``, ``<``, ``<=``, ``>`` and ``>=``. The
ordering ones stay exact while the difference fits in 32 bits.
"""

from __future__ import annotations

import torch

from ov_passes.pipeline import call_function, op_name, replace_node

aten = torch.ops.aten

_AGAINST_ZERO = {
    "aten.eq": aten.eq.Scalar,
    "aten.ne": aten.ne.Scalar,
    "aten.lt": aten.lt.Scalar,
    "aten.le": aten.le.Scalar,
    "aten.gt": aten.gt.Scalar,
    "aten.ge": aten.ge.Scalar,
}
_WIDE_INTEGERS = frozenset({torch.int32, torch.int64})


def _operand_is_integer(operand: object) -> bool:
    if isinstance(operand, torch.fx.Node):
        value = operand.meta.get("val")
        return isinstance(value, torch.Tensor) and value.dtype in _WIDE_INTEGERS
    return isinstance(operand, int) and not isinstance(operand, bool)


def integer_comparisons_by_difference(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite comparisons of int32/int64 operands as comparisons of their difference with 0.

    Returns:
        True when a comparison was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        packet, _, overload = op_name(node).rpartition(".")
        if packet not in _AGAINST_ZERO or overload not in ("Tensor", "Scalar"):
            continue
        left, right = node.args[0], node.args[1]
        if not (_operand_is_integer(left) and _operand_is_integer(right)):
            continue
        with graph.inserting_before(node):
            difference = call_function(graph, aten.sub.Tensor, (left, right))
            replacement = call_function(graph, _AGAINST_ZERO[packet], (difference, 0))
        replace_node(node, replacement)
        changed = True
    return changed
