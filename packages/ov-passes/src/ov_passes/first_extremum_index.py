"""The index of the first maximum (or minimum) of a row, as PyTorch documents it.

``torch.max(x, dim)`` and ``torch.min(x, dim)`` return the index of the first
extreme value where a row holds it more than once. OpenVINO's PyTorch frontend
converts them to a ``TopK`` that sorts nothing and is not stable, whose index
on ties is any of them: a ``(3, 40)`` row of values in 0..3 gave ``[4, 16,
8]`` where PyTorch gives ``[1, 1, 1]`` (OpenVINO 2026.4, CPU). The frontend
converts ``argmax`` and ``argmin`` to a stable ``TopK`` sorted by value, which
gives the first index, so each ``max.dim`` becomes ``amax`` and ``argmax``
over the same dim (``min.dim`` likewise), and the NaN pass that runs after it
sees those two.
"""

from __future__ import annotations

import operator

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function
from ov_spec import op_name

aten = torch.ops.aten

_SPLIT = {
    "aten.max.dim": (aten.amax.default, aten.argmax.default),
    "aten.min.dim": (aten.amin.default, aten.argmin.default),
}


@declare(Stage.REWRITES)
def extremum_and_index_as_reduction_and_arg(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite each ``max.dim`` and ``min.dim`` as a reduction and an arg-reduction.

    ``max(x, dim, keepdim)`` becomes ``amax(x, [dim], keepdim)`` for the values
    and ``argmax(x, dim, keepdim)`` for the indices; the outputs the graph does
    not read are not built.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        split = _SPLIT.get(op_name(node))
        readers = [user for user in node.users if user.target is operator.getitem]
        if split is None or len(readers) != len(node.users):
            continue
        x, dim = node.args[0], node.args[1]
        keep = bool(node.args[2]) if len(node.args) > 2 else bool(node.kwargs.get("keepdim"))
        reduction, arg = split
        for reader in readers:
            if not reader.users:  # an output the graph does not read
                graph.erase_node(reader)
                continue
            with graph.inserting_before(reader):
                if reader.args[1] == 0:
                    replacement = call_function(graph, reduction, (x, [dim], keep))
                else:
                    replacement = call_function(graph, arg, (x, dim, keep))
            reader.replace_all_uses_with(replacement)
            graph.erase_node(reader)
        graph.erase_node(node)
        changed = True
    return changed
