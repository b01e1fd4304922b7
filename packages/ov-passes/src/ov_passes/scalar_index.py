"""Give a 0-d ``index_select`` index the one dimension PyTorch treats it as having.

``torch.index_select(x, d, torch.tensor(1))`` keeps dimension ``d`` (of size
1), as with a 1-element index. OpenVINO's Gather drops the axis for a 0-d
index, so the result would have one dimension fewer than ExecuTorch planned.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function
from ov_spec import op_name


@declare(Stage.REWRITES)
def index_select_of_a_scalar_index(graph_module: torch.fx.GraphModule) -> bool:
    """Reshape each 0-d index of ``aten.index_select`` to shape ``[1]``.

    Returns:
        True when an index was reshaped.
    """
    changed = False
    graph = graph_module.graph
    for node in list(graph.nodes):
        if op_name(node) != "aten.index_select.default" or len(node.args) < 3:
            continue
        index = node.args[2]
        value = index.meta.get("val") if isinstance(index, torch.fx.Node) else None
        if not isinstance(value, torch.Tensor) or value.dim() != 0:
            continue
        with graph.inserting_before(node):
            vector = call_function(graph, torch.ops.aten.view_copy.default, (index, [1]))
        node.args = (node.args[0], node.args[1], vector, *node.args[3:])
        changed = True
    return changed
