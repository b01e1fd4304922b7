"""How an op's output interval follows from the intervals of its inputs.

Each rule takes ``of``, the interval of any argument (a node, an int or a
``SymInt``), so that rules need not know where intervals come from.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ov_partition.ranges.intervals import (
    INT32,
    Interval,
    RangeOf,
    absolute,
    powers,
    products,
    quotients,
    remainders,
)
from ov_partition.ranges.op_tables import ONE_FILLS, ZERO_FILLS

DTYPE_RANGES: dict[torch.dtype, Interval] = {
    torch.bool: (0, 1),
    torch.uint8: (0, 2**8 - 1),
    torch.int8: (-(2**7), 2**7 - 1),
    torch.int16: (-(2**15), 2**15 - 1),
    torch.int32: INT32,
}
"""The values each integer dtype but int64 can hold (int64 wraps in OpenVINO)."""

UNARY: dict[str, Callable[[Interval], Interval | None]] = {
    "aten.neg": lambda a: (-a[1], -a[0]),
    "aten.abs": absolute,
}
BINARY: dict[str, Callable[[Interval, Interval], Interval | None]] = {
    "aten.add": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "aten.sub": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "aten.mul": products,
    "aten.div": quotients,
    "aten.floor_divide": quotients,
    "aten.remainder": remainders,
    "aten.fmod": remainders,
    "aten.pow": powers,
    # Each operand bounds its side: minimum(True, x) reaches x's lowest value. Not
    # value-moving for index uses: narrowing either operand can change the answer.
    "aten.minimum": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
    "aten.maximum": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
}


def tensor_or_none(value: object) -> torch.Tensor | None:
    """``value`` if it is a tensor (a node's ``meta["val"]``), else None."""
    return value if isinstance(value, torch.Tensor) else None


def extent(tensor: torch.Tensor, of: RangeOf) -> int | None:
    """The largest number of elements ``tensor`` may hold."""
    total = 1
    for size in tensor.shape:
        bound = of(size)
        if bound is None:
            return None
        total *= bound[1]
    return total


def index_range(source: object, of: RangeOf) -> Interval | None:
    """The positions within ``source``'s elements, which an index result holds."""
    tensor = tensor_or_none(source.meta.get("val")) if isinstance(source, torch.fx.Node) else None
    elements = None if tensor is None else extent(tensor, of)
    return None if elements is None else (0, max(elements - 1, 0))


def fill(name: str, args: tuple[object, ...], of: RangeOf) -> Interval | None:
    """The value a fill op writes: 0, 1 or its fill argument (None for a float one)."""
    if name in ZERO_FILLS:
        return (0, 0)
    if name in ONE_FILLS:
        return (1, 1)
    value = args[0] if name == "aten.scalar_tensor" else args[1] if len(args) > 1 else None
    return None if isinstance(value, float) else of(value)


def arange(node: torch.fx.Node, of: RangeOf) -> Interval | None:
    """The values of ``arange(end)`` or ``arange(start, end[, step])`` of integer ends."""
    ends = [a for a in node.args if not isinstance(a, float)]
    if len(ends) != len(node.args):
        return None
    bounds = [of(a) for a in ends[:2]]
    if any(b is None for b in bounds):
        return None
    if len(bounds) == 1:
        bounds.insert(0, (0, 0))
    (start_low, start_high), (end_low, end_high) = bounds  # type: ignore[misc]
    # The values lie between start and end, excluded, in either direction.
    return (min(start_low, end_low + 1), max(start_high, end_high - 1))


def clamp(node: torch.fx.Node, of: RangeOf) -> Interval | None:
    """The values of ``clamp(x, low, high)``, either bound optional."""
    source = of(node.args[0])
    low = of(node.args[1]) if len(node.args) > 1 and node.args[1] is not None else None
    high = of(node.args[2]) if len(node.args) > 2 and node.args[2] is not None else None
    if low is not None and high is not None:  # min(max(x, low), high)
        return (min(low[0], high[0]), high[1])
    if source is None:
        return None
    return (
        max(source[0], low[0]) if low else source[0],
        min(source[1], high[1]) if high else source[1],
    )


def cumsum(node: torch.fx.Node, of: RangeOf) -> Interval | None:
    """The values of ``cumsum``: at most the dimension's length times its input's bounds."""
    source = node.args[0]
    values = of(source)
    tensor = tensor_or_none(source.meta.get("val")) if isinstance(source, torch.fx.Node) else None
    if values is None or tensor is None:
        return None
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    if not isinstance(dim, int):
        return None
    length = of(tensor.shape[dim]) if tensor.dim() else (1, 1)
    if length is None:
        return None
    steps = max(length[1], 1)
    return (min(values[0], values[0] * steps), max(values[1], values[1] * steps))


NODE_RULES: dict[str, Callable[[torch.fx.Node, RangeOf], Interval | None]] = {
    "aten.arange": arange,
    "aten.clamp": clamp,
    "aten.cumsum": cumsum,
    "aten.argmax": lambda node, of: index_range(node.args[0], of),
    "aten.argmin": lambda node, of: index_range(node.args[0], of),
    "aten.nonzero": lambda node, of: index_range(node.args[0], of),
}
"""Rules that read more of a node than its first two operands' intervals."""
