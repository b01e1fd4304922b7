"""``diagonal_copy`` as a gather from the flattened matrix, which the frontend converts.

OpenVINO's PyTorch frontend does not convert ``aten.diagonal_copy`` (the edge
form of ``torch.diagonal``, which ``MultivariateNormal.log_prob`` and
``torch.trace``-like code use). For static sizes ``n1 x n2`` of the two
dimensions, the diagonal at ``offset`` is the elements ``start, start + n2 +
1, ...`` of the matrix flattened, so the two dimensions move last and merge (a view),
and ``index_select`` takes those elements: the result's shape and order are
PyTorch's (the batch dimensions, then the diagonal).
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import (
    call_function,
    constant_value,
    replace_node,
    scalar_arguments,
)
from ov_spec import op_name

aten = torch.ops.aten


def _static_sizes(graph_module: torch.fx.GraphModule, node: torch.fx.Node) -> list[int] | None:
    if (weight := constant_value(graph_module, node)) is not None:
        # A weight or buffer of the unlifted partition: its fake value may lack
        # one or have symbolic sizes where the tensor's are fixed.
        node.meta["val"] = weight
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor):
        return None
    sizes = list(value.shape)
    return sizes if all(isinstance(size, int) for size in sizes) else None


@declare(Stage.REWRITES, converts={"aten.diagonal_copy.default"})
def diagonals_as_gathers(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite each ``diagonal_copy`` of a static-shaped tensor as a view and an ``index_select``.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) != "aten.diagonal_copy.default":
            continue
        source = node.args[0]
        assert isinstance(source, torch.fx.Node)
        sizes = _static_sizes(graph_module, source)
        if sizes is None:
            continue
        rank = len(sizes)
        offset, dim1, dim2 = map(int, scalar_arguments(node, {"offset": 0, "dim1": 0, "dim2": 1}))
        dim1, dim2 = dim1 % rank, dim2 % rank
        rows, columns = sizes[dim1], sizes[dim2]
        length = max(0, min(rows + min(offset, 0), columns - max(offset, 0)))
        start = max(-offset, 0) * columns + max(offset, 0)
        batch = [d for d in range(rank) if d not in (dim1, dim2)]
        with graph.inserting_before(node):
            moved = call_function(graph, aten.permute.default, (source, [*batch, dim1, dim2]))
            flat = call_function(
                graph, aten.view_copy.default, (moved, [*(sizes[d] for d in batch), rows * columns])
            )
            index = call_function(
                graph,
                aten.arange.start_step,
                (start, start + length * (columns + 1), columns + 1),
                {"dtype": torch.int64},
            )
            replacement = call_function(graph, aten.index_select.default, (flat, -1, index))
        replace_node(node, replacement)
        changed = True
    return changed
