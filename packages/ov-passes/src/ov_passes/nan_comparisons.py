"""Greater-than comparisons that are false for NaN, as in PyTorch.

OpenVINO's CPU plugin answers ``Greater`` and ``GreaterEqual`` with true when
an operand is NaN; its ``Less`` and ``LessEqual`` answer false, as PyTorch
does. So ``a > b`` becomes ``b < a``, and ``a > s`` for a float tensor and a
number becomes ``-a < -s`` (negation keeps NaN and flips the order exactly).
Integer comparisons have no NaN and are left alone.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node
from ov_spec import op_name

aten = torch.ops.aten

_SWAPPED = {"aten.gt.Tensor": aten.lt.Tensor, "aten.ge.Tensor": aten.le.Tensor}
_NEGATED = {"aten.gt.Scalar": aten.lt.Scalar, "aten.ge.Scalar": aten.le.Scalar}


def _reads_floats(node: torch.fx.Node) -> bool:
    return any(
        isinstance(arg.meta.get("val"), torch.Tensor) and arg.meta["val"].is_floating_point()
        for arg in node.all_input_nodes
    )


@declare(Stage.REWRITES)
def greater_as_less(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite float ``gt``/``ge`` comparisons as ``lt``/``le`` with the operands swapped or negated.

    Returns:
        True when a comparison was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        name = op_name(node)
        if (name not in _SWAPPED and name not in _NEGATED) or not _reads_floats(node):
            continue
        left, right = node.args[0], node.args[1]
        with graph.inserting_before(node):
            if name in _SWAPPED:
                replacement = call_function(graph, _SWAPPED[name], (right, left))
            elif isinstance(right, (int, float)) and isinstance(left, torch.fx.Node):
                negated = call_function(graph, aten.neg.default, (left,))
                # As a float: PyTorch compares a float tensor with the number in
                # floating point, and -(-2**63) does not fit in int64.
                replacement = call_function(graph, _NEGATED[name], (negated, -float(right)))
            else:
                continue
        replace_node(node, replacement)
        changed = True
    return changed
