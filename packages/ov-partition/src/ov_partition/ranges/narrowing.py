"""The nodes OpenVINO would compute narrower than PyTorch: the verdict the partitioner reads."""

from __future__ import annotations

import operator

import torch
from torch.export import ExportedProgram

from ov_partition.op_support import op_packet
from ov_partition.ranges.bounds import IntegerRanges
from ov_partition.ranges.control_flow import narrowing_inside
from ov_partition.ranges.intervals import INT32, within
from ov_partition.ranges.op_tables import INDEX_ARGUMENTS, MOVES_VALUES, SHAPE_READERS, flat
from ov_partition.ranges.openvino_limits import (
    EXACT_IN_FLOAT32,
    FLOAT32_COMPUTED,
    INT64_NOT_PROVED,
    integer_result,
)


def narrowed_nodes(program: ExportedProgram, *, int64: bool = True) -> dict[str, str]:
    """The nodes OpenVINO would compute narrower than PyTorch, by name, with the reason.

    A node is named when it divides, takes a remainder or a power of integers
    not proved to lie within 2**24 in magnitude, and (with ``int64``) when it
    writes an int64 tensor, or reads one, whose values are not proved to fit in
    int32, unless every reader uses them as indices.
    """
    ranges = IntegerRanges(program)
    memo: dict[torch.fx.Node, bool] = {}
    reasons: dict[str, str] = {}
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        reason = _narrowing(node, ranges, memo, int64=int64) or narrowing_inside(node, int64=int64)
        if reason is not None:
            reasons[node.name] = reason
    return reasons


def _narrowing(
    node: torch.fx.Node, ranges: IntegerRanges, memo: dict[torch.fx.Node, bool], *, int64: bool
) -> str | None:
    outputs = node.meta.get("val")
    written = [outputs] if isinstance(outputs, torch.Tensor) else []
    if isinstance(outputs, list | tuple):
        written = [t for t in outputs if isinstance(t, torch.Tensor)]
    # The first output holds the values (a max pooling's second its indices).
    if op_packet(node) in FLOAT32_COMPUTED and integer_result(written[:1]):
        positions = FLOAT32_COMPUTED[op_packet(node)]
        operands = (
            [node]
            if positions is None
            else [_integral(node.args[i]) for i in positions if i < len(node.args)]
        )
        if not all(within(ranges.of(a), EXACT_IN_FLOAT32) for a in operands):
            return (
                f"OpenVINO's CPU plugin computes integer {op_packet(node)} in float32, exact "
                "only within 2**24, and its operands are not proved to lie there"
            )
    if not int64:
        return None
    if _unbounded_int64(node, ranges, memo):
        return f"writes int64 values {INT64_NOT_PROVED}"
    # A node that reads no values, or moves them to index uses alone, narrows nothing that matters.
    harmless = op_packet(node) in SHAPE_READERS or (
        op_packet(node) in MOVES_VALUES
        and (_index_only(node, ranges, memo) or within(ranges.of(node), INT32))
    )
    for source in [] if harmless else node.all_input_nodes:
        if _unbounded_int64(source, ranges, memo):
            return f"reads int64 values of {source.name} {INT64_NOT_PROVED}"
    return None


def _integral(argument: object) -> object:
    """A float argument of integral value as an int (a pad's fill value of an integer tensor)."""
    return int(argument) if isinstance(argument, float) and argument.is_integer() else argument


def _unbounded_int64(
    node: torch.fx.Node, ranges: IntegerRanges, memo: dict[torch.fx.Node, bool]
) -> bool:
    """Whether ``node`` is an int64 tensor not proved to fit in int32, nor read as indices alone.

    A node of several outputs (``max_pool2d_with_indices``) is judged by the
    outputs the graph reads (its ``getitem`` users).
    """
    value = node.meta.get("val")
    if isinstance(value, list | tuple):
        return any(
            user.target is operator.getitem and _unbounded_int64(user, ranges, memo)
            for user in node.users
        )
    if not isinstance(value, torch.Tensor) or value.dtype != torch.int64:
        return False
    return not (within(ranges.of(node), INT32) or _index_only(node, ranges, memo))


def _index_only(
    node: torch.fx.Node, ranges: IntegerRanges, memo: dict[torch.fx.Node, bool]
) -> bool:
    """Whether every reader of ``node`` uses its values as indices, directly or after moving them.

    A valid index lies within a dimension, so its narrowed value is the same.
    ``item()`` counts as such a use when the export bounds its result within
    int32 (``torch._check``): a valid input lies there, narrowed or not.
    """
    if node in memo:
        return memo[node]
    memo[node] = False  # a cycle cannot happen in a graph; this guards the recursion
    result = bool(node.users)
    for user in node.users:
        name = op_packet(user)
        if name in SHAPE_READERS:
            continue
        if name == "aten._local_scalar_dense" and within(ranges.of(user), INT32):
            continue
        positions = INDEX_ARGUMENTS.get(name, ())
        as_index = any(
            position < len(user.args) and node in flat(user.args[position])
            for position in positions
        )
        if not as_index and not (name in MOVES_VALUES and _index_only(user, ranges, memo)):
            result = False
            break
    memo[node] = result
    return result
