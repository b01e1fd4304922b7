"""Max pooling windows that hold only padding give -inf and PyTorch's index.

With dilation, padding and a small input, a window can cover padding alone
(``max_pool2d`` of height 1 with ``padding=1`` and ``dilation=2``). PyTorch
gives such a window -inf and the flat index of where its kernel started to
look, an index past the input. OpenVINO's ``MaxPool`` gives the lowest float
and index 0 (OpenVINO 2026.4). Which windows these are, and PyTorch's index
there, depend on the static spatial shape only: PyTorch's own pooling of a
tensor of zeros gives both (-inf exactly at those windows), and the pass
selects them as constants.
"""

from __future__ import annotations

import math
import operator

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, constant, redirect_users
from ov_spec import op_name

aten = torch.ops.aten

_MAX_POOLS = {
    "aten.max_pool2d_with_indices.default": (2, aten.max_pool2d_with_indices.default),
    "aten.max_pool3d_with_indices.default": (3, aten.max_pool3d_with_indices.default),
}


def _windows_of_padding(node: torch.fx.Node) -> tuple[torch.Tensor, torch.Tensor] | None:
    """Which windows of ``node`` hold only padding, and PyTorch's index there; None if none can be known.

    Both are shaped ``[1] * batch dims + output spatial shape``: a bool mask
    and int64 indices. None when the pooling has no such window or its
    spatial sizes are dynamic.
    """
    dims, pool = _MAX_POOLS[op_name(node)]
    value = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        return None
    spatial = list(value.shape[-dims:])
    if not all(isinstance(size, int) for size in spatial) or math.prod(spatial) == 0:
        return None
    zeros = torch.zeros([1] * (value.dim() - dims) + spatial)
    pooled, indices = pool(zeros, *node.args[1:], **node.kwargs)
    empty = pooled == -math.inf
    return (empty, indices) if bool(empty.any()) else None


@declare(Stage.REWRITES)
def max_pool_windows_of_padding(graph_module: torch.fx.GraphModule) -> bool:
    """Select -inf and PyTorch's index where a float max pooling's window holds only padding.

    Returns:
        True when a node's results were rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) not in _MAX_POOLS:
            continue
        found = _windows_of_padding(node)
        if found is None:
            continue
        empty, indices = found
        with graph.inserting_before(node.next):
            mask = constant(graph_module, f"_ov_padding_windows_{node.name}", empty)
        readers = {u.args[1]: u for u in node.users if u.target is operator.getitem}
        for position in {0, 1} & readers.keys():
            reader = readers[position]
            with graph.inserting_before(reader.next):
                if position == 1:
                    fill = constant(graph_module, f"_ov_padding_index_{node.name}", indices)
                else:
                    dtype = reader.meta["val"].dtype
                    fill = call_function(
                        graph, aten.scalar_tensor.default, (-math.inf,), {"dtype": dtype}
                    )
                selected = call_function(graph, aten.where.self, (mask, fill, reader))
            redirect_users(reader, selected)
            changed = True
    return changed
