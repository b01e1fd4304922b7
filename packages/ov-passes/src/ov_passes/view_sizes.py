"""Spell out the ``-1`` of a view when export already knows that size.

``x[:n].view(n, -1)`` exports with the size list ``[n, -1]``, while the
export metadata knows the result is ``(n, 8)``. OpenVINO's Reshape infers
``-1`` from the element count, which is ambiguous at ``n = 0``: it returns
``(0, 0)``. With ``[n, 8]`` it returns ``(0, 8)``, the shape ExecuTorch
planned for. Only sizes that the metadata gives as plain ints are filled in.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_spec import op_name

VIEW_OPS = frozenset(
    {
        "aten.view.default",
        "aten.view_copy.default",
        "aten.reshape.default",
        "aten._unsafe_view.default",
    }
)


@declare(Stage.REWRITES)
def view_sizes_from_metadata(graph_module: torch.fx.GraphModule) -> bool:
    """Replace ``-1`` entries of view sizes with the static size from the node's metadata.

    Returns:
        True when a size was filled in.
    """
    changed = False
    for node in graph_module.graph.nodes:
        value = node.meta.get("val")
        if op_name(node) not in VIEW_OPS or not isinstance(value, torch.Tensor):
            continue
        sizes = node.args[1]
        if not isinstance(sizes, (list, tuple)) or len(sizes) != value.dim():
            continue
        filled = [
            known if isinstance(size, int) and size == -1 and isinstance(known, int) else size
            for size, known in zip(sizes, value.shape, strict=True)
        ]
        if filled != list(sizes):
            node.args = (node.args[0], filled, *node.args[2:])
            changed = True
    return changed
