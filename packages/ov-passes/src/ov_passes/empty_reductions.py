"""Means and variances over no elements are NaN, as in PyTorch.

PyTorch divides the sum of no elements by their count, 0, so the mean, the
variance and the standard deviation of an empty dim are NaN. OpenVINO's CPU
plugin gives 0 (measured on 2026.4: ``zeros(3, 0).mean(-1)`` gave
``[0, 0, 0]``). A static count of 0 is known at lowering, so a result of a
static shape becomes ``full(shape, nan)``, and one whose shape is known only at
run time is multiplied by NaN (its shape stays OpenVINO's).

Nothing is computed on the empty input where the shape is static: the CPU
plugin's variance of an empty rank-4 tensor over all dims wrote past its 0-d
output (seen under valgrind, 2026.4), which corrupted ExecuTorch's memory plan.
"""

from __future__ import annotations

import math

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, redirect_users, reduced_dims, replace_node
from ov_spec import op_name

aten = torch.ops.aten

_AVERAGES = frozenset(
    {
        "aten.mean.default",
        "aten.mean.dim",
        "aten.var.correction",
        "aten.var.dim",
        "aten.std.correction",
        "aten.std.dim",
    }
)


def _averages_nothing(node: torch.fx.Node) -> bool:
    """Whether ``node`` reduces over dims of which one has a static size of 0."""
    x = node.args[0]
    value = x.meta.get("val") if isinstance(x, torch.fx.Node) else None
    if not isinstance(x, torch.fx.Node) or not isinstance(value, torch.Tensor):
        return False
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    return any(
        isinstance(value.shape[d], int) and value.shape[d] == 0 for d in reduced_dims(x, dims)
    )


@declare(Stage.REWRITES)
def averages_of_nothing_as_nan(graph_module: torch.fx.GraphModule) -> bool:
    """Make float ``mean``, ``var`` and ``std`` over a dim of size 0 return NaN.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) not in _AVERAGES or not _averages_nothing(node):
            continue
        value = node.meta.get("val")
        if not isinstance(value, torch.Tensor) or not value.is_floating_point():
            continue
        shape = list(value.shape)
        if all(isinstance(size, int) for size in shape):
            with graph.inserting_before(node):
                nan = call_function(
                    graph, aten.full.default, (shape, math.nan), {"dtype": value.dtype}
                )
            replace_node(node, nan)
        else:
            with graph.inserting_after(node):
                nan = call_function(graph, aten.mul.Scalar, (node, math.nan))
            redirect_users(node, nan)
        changed = True
    if changed:
        graph.eliminate_dead_code()
    return changed
