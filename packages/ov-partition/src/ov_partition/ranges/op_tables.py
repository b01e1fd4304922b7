"""What each op does with the integer values it reads, by op name without overload."""

from __future__ import annotations

import torch

from ov_partition.op_support import op_packet

# Ops whose output elements are elements of their value inputs (the positions
# listed; None: every tensor argument).
MOVES_VALUES: dict[str, tuple[int, ...] | None] = {
    **dict.fromkeys(
        (
            "aten.view_copy",
            "aten._unsafe_view",
            "aten.clone",
            "aten.permute_copy",
            "aten.transpose_copy",
            "aten.t_copy",
            "aten.expand_copy",
            "aten.squeeze_copy",
            "aten.unsqueeze_copy",
            "aten.slice_copy",
            "aten.select_copy",
            "aten.alias_copy",
            "aten.flip",
            "aten.roll",
            "aten.repeat",
            "aten.unbind_copy",
            "aten.split_copy",
            "aten.split_with_sizes_copy",
            "aten.constant_pad_nd",
            "aten.gather",
            "aten.index_select",
            "aten.index",
            "aten.amax",
            "aten.amin",
            "dim_order_ops._clone_dim_order",
        ),
        (0,),
    ),
    "aten.copy": (1,),
    "aten.cat": None,
    "aten.stack": None,
    "aten.where": (1, 2),
}

# Ops whose output 1 holds positions within their input 0.
INDEX_OUTPUTS = frozenset(
    {"aten.sort", "aten.topk", "aten.max", "aten.min"}
    | {"aten.max_pool2d_with_indices", "aten.max_pool3d_with_indices"}
)
CASTS = frozenset({"aten._to_copy", "dim_order_ops._to_dim_order_copy", "aten.to", "aten.type_as"})
ZERO_FILLS = frozenset({"aten.zeros", "aten.zeros_like", "aten.empty", "aten.empty_like"})
ONE_FILLS = frozenset({"aten.ones", "aten.ones_like"})
FILLS = frozenset({"aten.full", "aten.full_like", "aten.scalar_tensor"}) | ZERO_FILLS | ONE_FILLS

# Readers of a tensor's shape and dtype alone.
SHAPE_READERS = frozenset(
    {"aten.sym_size", "aten.sym_numel", "aten.sym_stride"}
    | {"aten.zeros_like", "aten.ones_like", "aten.full_like", "aten.empty_like"}
)

# A reader at these argument positions uses the values as indices.
INDEX_ARGUMENTS: dict[str, tuple[int, ...]] = {
    "aten.embedding": (1,),
    "aten.embedding_bag": (1, 2),
    "aten._embedding_bag": (1, 2),
    "aten.index": (1,),
    "aten.index_put": (1,),
    "aten.index_copy": (2,),
    "aten.gather": (2,),
    "aten.scatter": (2,),
    "aten.scatter_add": (2,),
    "aten.scatter_reduce": (2,),
    "aten.index_select": (2,),
}


def flat(argument: object) -> list[object]:
    """An argument as a list: its items if it is a list or tuple, else itself alone."""
    return list(argument) if isinstance(argument, list | tuple) else [argument]


def moved(node: torch.fx.Node) -> list[object]:
    """The arguments whose values a node of ``MOVES_VALUES`` passes on, lists flattened."""
    positions = MOVES_VALUES[op_packet(node)]
    chosen = (
        node.args if positions is None else [node.args[p] for p in positions if p < len(node.args)]
    )
    return [x for argument in chosen for x in flat(argument)]
