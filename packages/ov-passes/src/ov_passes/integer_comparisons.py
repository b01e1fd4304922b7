"""Compare 32- and 64-bit integers exactly, though OpenVINO compares them in float32.

OpenVINO's CPU plugin compares int32 (and int64, which it computes in 32
bits) in float32, so ``16,777,217 == 16,777,216`` is true there. Its integer
subtraction and bitwise ops are exact (subtraction wraps like PyTorch's).

* ``a == b`` and ``a != b`` become ``a - b == 0`` and ``a - b != 0``: a
  difference, wrapped or not, is zero exactly when the operands are equal, and
  keeps its zero in float32.
* ``a < b`` splits each operand into a high part ``a - (a & 0xFFFF)``, a
  multiple of 2**16 that float32 holds exactly, and a low part ``a & 0xFFFF``
  in [0, 65535]: ``a < b`` is ``hi(a) < hi(b)``, or equal high parts and
  ``lo(a) < lo(b)``. ``<=``, ``>`` and ``>=`` are that with the operands
  swapped or negated.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node
from ov_spec import op_name

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


def _parts(graph: torch.fx.Graph, operand: object) -> tuple[object, object]:
    """The high and low parts of an int tensor node or an int (see the module docstring)."""
    if isinstance(operand, int):
        return operand - (operand & 0xFFFF), operand & 0xFFFF
    low = call_function(graph, aten.bitwise_and.Scalar, (operand, 0xFFFF))
    return call_function(graph, aten.sub.Tensor, (operand, low)), low


def _order(graph: torch.fx.Graph, less: bool, left: object, right: object) -> torch.fx.Node:
    """``left < right`` (or ``left == right``) where at most one side is an int."""
    if isinstance(left, torch.fx.Node) and isinstance(right, torch.fx.Node):
        return call_function(graph, aten.lt.Tensor if less else aten.eq.Tensor, (left, right))
    if isinstance(left, torch.fx.Node):
        return call_function(graph, aten.lt.Scalar if less else aten.eq.Scalar, (left, right))
    return call_function(graph, aten.gt.Scalar if less else aten.eq.Scalar, (right, left))


def _less(graph: torch.fx.Graph, left: object, right: object) -> torch.fx.Node:
    """``left < right`` of int32/int64 operands (a node or an int), exact in float32."""
    left_high, left_low = _parts(graph, left)
    right_high, right_low = _parts(graph, right)
    high_less = _order(graph, True, left_high, right_high)
    high_equal = _order(graph, False, left_high, right_high)
    low_less = _order(graph, True, left_low, right_low)
    tie = call_function(graph, aten.bitwise_and.Tensor, (high_equal, low_less))
    return call_function(graph, aten.bitwise_or.Tensor, (high_less, tie))


def _not(graph: torch.fx.Graph, node: torch.fx.Node) -> torch.fx.Node:
    return call_function(graph, aten.logical_not.default, (node,))


@declare(
    Stage.REWRITES,
    after=(
        "logical_ops_as_bitwise",
        "truth_as_comparisons",
        "integer_floor_division_by_truncation",
    ),
    why="the truth values and the floor division they build compare integers, which this makes exact",
)
def exact_integer_comparisons(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite comparisons of int32/int64 operands to be exact (see the module docstring).

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
            if packet in ("aten.eq", "aten.ne"):
                difference = call_function(graph, aten.sub.Tensor, (left, right))
                replacement = call_function(graph, _AGAINST_ZERO[packet], (difference, 0))
            elif packet in ("aten.lt", "aten.ge"):
                less = _less(graph, left, right)
                replacement = less if packet == "aten.lt" else _not(graph, less)
            else:  # a > b is b < a, and a <= b is not b < a
                flipped = _less(graph, right, left)
                replacement = flipped if packet == "aten.gt" else _not(graph, flipped)
        replace_node(node, replacement)
        changed = True
    return changed
