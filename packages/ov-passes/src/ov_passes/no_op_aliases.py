"""Drop views and copies that return their input unchanged.

``x.transpose(0, 0)`` exports as ``alias_copy``; ``view`` to the same shape,
``expand`` to the same shape, an identity ``permute`` and a ``clone`` that
keeps the strides compute nothing either. OpenVINO's PyTorch frontend fails to
convert a partition whose outputs are a value and such an alias of it
("Tensor name is not a number"). With the node gone, its users read the input
itself, and an output that is an input or repeats another output is one the
runtime copies out after inference (``ov_convert.output_signature``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch.fx.experimental.symbolic_shapes import statically_known_true

from ov_passes.declarations import Stage, declare
from ov_spec import op_name

ALIASES = frozenset({"aten.alias.default", "aten.alias_copy.default"})
CLONES = frozenset({"aten.clone.default"})
SAME_SHAPE = frozenset(
    {
        "aten.view.default",
        "aten.view_copy.default",
        "aten.reshape.default",
        "aten._unsafe_view.default",
        "aten.expand.default",
        "aten.expand_copy.default",
    }
)
PERMUTES = frozenset({"aten.permute.default", "aten.permute_copy.default"})
TRANSPOSES = frozenset({"aten.transpose.int", "aten.transpose_copy.int"})


def _same(first: Sequence[Any], second: Sequence[Any]) -> bool:
    """Whether two shapes or strides are provably equal, without guarding on symbolic sizes."""
    return len(first) == len(second) and all(
        statically_known_true(a == b) for a, b in zip(first, second, strict=True)
    )


def _is_no_op(node: torch.fx.Node) -> bool:
    name = op_name(node)
    source = node.args[0] if node.args else None
    value, before = node.meta.get("val"), getattr(source, "meta", {}).get("val")
    if not isinstance(value, torch.Tensor) or not isinstance(before, torch.Tensor):
        return False
    if value.dtype != before.dtype or not _same(value.shape, before.shape):
        return False
    if name in ALIASES:
        return True
    if name in CLONES:
        return _same(value.stride(), before.stride())
    if name in SAME_SHAPE:
        return all(isinstance(size, int) for size in value.shape)
    rank = max(value.dim(), 1)
    if name in PERMUTES:
        dims = node.args[1]
        return isinstance(dims, (list, tuple)) and [
            d % rank if isinstance(d, int) else d for d in dims
        ] == list(range(value.dim()))
    if name in TRANSPOSES:
        first, second = node.args[1], node.args[2]
        return isinstance(first, int) and isinstance(second, int) and first % rank == second % rank
    return False


@declare(
    Stage.CLEANUP,
    after=("view_sizes_from_metadata",),
    why="a view is a no-op alias only once its sizes are read from the metadata",
)
def drop_no_op_aliases(graph_module: torch.fx.GraphModule) -> bool:
    """Replace each no-op view or copy by its input.

    Returns:
        True when a node was dropped.
    """
    changed = False
    for node in list(graph_module.graph.nodes):
        if node.op == "call_function" and _is_no_op(node):
            node.replace_all_uses_with(node.args[0])
            graph_module.graph.erase_node(node)
            changed = True
    return changed
