"""Bounds that index uses imply, carried back to the values they were computed from.

PyTorch refuses an index outside the dimension it indexes, so a valid program's
index values lie within ``(-n, n - 1)`` for a dimension of at most ``n``; so do
the values an index was moved from, or offset from by a bounded operand.
"""

from __future__ import annotations

import functools

import torch

from ov_partition.op_support import op_packet
from ov_partition.ranges.intervals import Interval, RangeOf, meet
from ov_partition.ranges.op_tables import INDEX_ARGUMENTS, MOVES_VALUES, flat, moved
from ov_partition.ranges.range_rules import tensor_or_none


def implied_by_indexing(graph: torch.fx.Graph, of: RangeOf) -> dict[torch.fx.Node, Interval]:
    """The bounds index uses imply, carried back through moves and ``add``/``sub`` of a bounded operand.

    Args:
        graph: The program's graph; its nodes are visited users first.
        of: The interval of an argument as bounded so far (without these bounds).
    """
    implied: dict[torch.fx.Node, Interval] = {}
    for node in reversed(graph.nodes):
        bounds = [b for user in node.users if (b := index_extent(user, node, of))]
        bounds += [b for user in node.users if (b := carried_back(user, node, implied, of))]
        if bounds:
            implied[node] = functools.reduce(meet, bounds)
    return implied


def index_extent(user: torch.fx.Node, node: torch.fx.Node, of: RangeOf) -> Interval | None:
    """``(-n, n - 1)`` when ``user`` indexes a dimension of at most ``n`` with ``node``."""
    name = op_packet(user)
    source = (
        tensor_or_none(user.args[0].meta.get("val"))
        if isinstance(user.args[0], torch.fx.Node)
        else None
    )
    if source is None or name not in INDEX_ARGUMENTS or name.startswith("aten._embedding"):
        return None
    position = INDEX_ARGUMENTS[name][0]
    if position >= len(user.args):
        return None
    indices = flat(user.args[position])
    if node not in indices:
        return None
    if name in ("aten.index", "aten.index_put"):
        dim = indices.index(node)
    elif name == "aten.embedding":
        dim = 0
    else:
        dim = user.args[1] if isinstance(user.args[1], int) else -1
    if not -source.dim() <= dim < source.dim():
        return None
    size = of(source.shape[dim])
    return None if size is None else (-size[1], size[1] - 1)


def carried_back(
    user: torch.fx.Node,
    node: torch.fx.Node,
    implied: dict[torch.fx.Node, Interval],
    of: RangeOf,
) -> Interval | None:
    """What ``user``'s implied bound says of ``node``, one of its operands."""
    bound = implied.get(user)
    name = op_packet(user)
    if bound is None:
        return None
    if name in MOVES_VALUES:
        return bound if node in moved(user) else None
    if name not in ("aten.add", "aten.sub") or len(user.args) < 2:
        return None
    first, second = user.args[0], user.args[1]
    other = of(second if first is node else first)
    if other is None or (first is node) == (second is node):
        return None
    if name == "aten.add":  # node = user - other
        return (bound[0] - other[1], bound[1] - other[0])
    if first is node:  # node = user + other
        return (bound[0] + other[0], bound[1] + other[1])
    return (other[0] - bound[1], other[1] - bound[0])  # node = other - user
