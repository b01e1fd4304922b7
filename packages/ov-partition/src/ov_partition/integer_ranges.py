"""Keep integer work on the CPU where OpenVINO would compute it narrower than PyTorch.

OpenVINO's CPU plugin computes int64 tensors in 32 bits: a value past the
int32 range wraps without an error, also when it only passes through a
delegate (``abs`` of 2**40 gives 0). It divides integers, takes remainders
and powers in float32, exact only up to 2**24 in magnitude
(``16777217 // 1`` gives 16777216). A node is delegated anyway when the values
it reads and writes provably fit: this module bounds every integer tensor of
an exported program by an interval, from

* the dtype (int32 fits 32 bits; bool is 0 or 1);
* constants, parameters and buffers the program never mutates (their values);
* the export's value ranges of sizes and ``item()`` results
  (``ExportedProgram.range_constraints``), for ``arange``, ``full`` and
  shapes;
* interval arithmetic through ``add``, ``sub``, ``mul``, ``neg``, ``abs``,
  ``cumsum`` over a bounded length, casts, and the ops that only move values
  (views, slices, ``cat``, ``where``, ``index``, clamps);
* index results (``argmax``, ``sort``, ``topk``), which lie inside their
  input's extent.

A user's int64 input is unbounded. An int64 tensor whose only readers use it as
indices (``embedding``, ``index``, ``gather``, ``index_put``), directly or
through ops that only move values, is exempt: a valid index lies within a
dimension, so its narrowed value is the same.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

from ov_partition.op_support import branches, op_packet

Interval = tuple[int, int]
"""Inclusive bounds of every element of an integer tensor (or of an int)."""

INT32: Interval = (-(2**31), 2**31 - 1)
INT64: Interval = (-(2**63), 2**63 - 1)
EXACT_IN_FLOAT32: Interval = (-(2**24), 2**24)
"""Integers OpenVINO's float32 division, remainder and ``pow`` get exactly."""

_DTYPE_RANGES: dict[torch.dtype, Interval] = {
    torch.bool: (0, 1),
    torch.uint8: (0, 2**8 - 1),
    torch.int8: (-(2**7), 2**7 - 1),
    torch.int16: (-(2**15), 2**15 - 1),
    torch.int32: INT32,
}

# Ops whose output elements are elements of their value inputs (the positions
# listed; None: every tensor argument).
_MOVES_VALUES: dict[str, tuple[int, ...] | None] = {
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
_INDEX_OUTPUTS = frozenset(
    {"aten.sort", "aten.topk", "aten.max", "aten.min"}
    | {"aten.max_pool2d_with_indices", "aten.max_pool3d_with_indices"}
)
_CASTS = frozenset({"aten._to_copy", "dim_order_ops._to_dim_order_copy", "aten.to", "aten.type_as"})
_ZERO_FILLS = frozenset({"aten.zeros", "aten.zeros_like", "aten.empty", "aten.empty_like"})
_ONE_FILLS = frozenset({"aten.ones", "aten.ones_like"})
_FILLS = frozenset({"aten.full", "aten.full_like", "aten.scalar_tensor"}) | _ZERO_FILLS | _ONE_FILLS

# Readers of a tensor's shape and dtype alone.
_SHAPE_READERS = frozenset(
    {"aten.sym_size", "aten.sym_numel", "aten.sym_stride"}
    | {"aten.zeros_like", "aten.ones_like", "aten.full_like", "aten.empty_like"}
)

# A reader at these argument positions uses the values as indices.
_INDEX_ARGUMENTS: dict[str, tuple[int, ...]] = {
    "aten.embedding": (1,),
    "aten.embedding_bag": (1, 2),
    "aten._embedding_bag": (1, 2),
    "aten.index": (1,),
    "aten.index_put": (1,),
    "aten.gather": (2,),
    "aten.scatter": (2,),
    "aten.scatter_add": (2,),
    "aten.scatter_reduce": (2,),
    "aten.index_select": (2,),
}

FLOAT32_COMPUTED = frozenset(
    {"aten.div", "aten.floor_divide", "aten.remainder", "aten.fmod", "aten.pow"}
)
"""Integer ops OpenVINO's CPU plugin computes in float32 (exact within ``EXACT_IN_FLOAT32``)."""


def _hull(intervals: Iterable[Interval | None]) -> Interval | None:
    known = list(intervals)
    if not known or any(interval is None for interval in known):
        return None
    return (min(i[0] for i in known if i), max(i[1] for i in known if i))


def _meet(a: Interval, b: Interval) -> Interval:
    return (max(a[0], b[0]), min(a[1], b[1]))


def _within(interval: Interval | None, bounds: Interval) -> bool:
    return interval is not None and bounds[0] <= interval[0] and interval[1] <= bounds[1]


def _products(a: Interval, b: Interval) -> Interval:
    corners = [x * y for x in a for y in b]
    return (min(corners), max(corners))


def _tensor(value: object) -> torch.Tensor | None:
    return value if isinstance(value, torch.Tensor) else None


class IntegerRanges:
    """The interval of every integer tensor and int of one exported program.

    Args:
        program: An exported program (ATen or edge dialect).
    """

    def __init__(self, program: ExportedProgram) -> None:
        """Bound every node of ``program``'s graph, in graph order."""
        self._symbols: dict[Any, ValueRanges[Any]] = {
            symbol: bounds
            for symbol, bounds in program.range_constraints.items()
            if getattr(symbol, "is_Symbol", False)
        }
        self._constants = _constant_values(program)
        self._implied: dict[torch.fx.Node, Interval] = {}
        self.ranges: dict[torch.fx.Node, Interval | None] = {}
        for node in program.graph.nodes:
            self.ranges[node] = self._bound(node)
        # A valid index lies within the dimension it indexes (PyTorch refuses
        # others), which bounds the values it was computed from; bound again.
        self._implied = self._implied_by_indexing(program)
        if self._implied:
            for node in program.graph.nodes:
                self.ranges[node] = self._bound(node)

    def _implied_by_indexing(self, program: ExportedProgram) -> dict[torch.fx.Node, Interval]:
        """The bounds index uses imply, carried back through moves and ``add``/``sub`` of a bounded operand."""
        implied: dict[torch.fx.Node, Interval] = {}
        for node in reversed(program.graph.nodes):
            bounds = [b for user in node.users if (b := self._index_extent(user, node))]
            bounds += [b for user in node.users if (b := self._carried_back(user, node, implied))]
            if bounds:
                implied[node] = functools.reduce(_meet, bounds)
        return implied

    def _index_extent(self, user: torch.fx.Node, node: torch.fx.Node) -> Interval | None:
        """``(-n, n - 1)`` when ``user`` indexes a dimension of at most ``n`` with ``node``."""
        name = op_packet(user)
        source = (
            _tensor(user.args[0].meta.get("val"))
            if isinstance(user.args[0], torch.fx.Node)
            else None
        )
        if source is None or name not in _INDEX_ARGUMENTS or name.startswith("aten._embedding"):
            return None
        position = _INDEX_ARGUMENTS[name][0]
        if position >= len(user.args):
            return None
        indices = _flat(user.args[position])
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
        size = self.of(source.shape[dim])
        return None if size is None else (-size[1], size[1] - 1)

    def _carried_back(
        self, user: torch.fx.Node, node: torch.fx.Node, implied: dict[torch.fx.Node, Interval]
    ) -> Interval | None:
        """What ``user``'s implied bound says of ``node``, one of its operands."""
        bound = implied.get(user)
        name = op_packet(user)
        if bound is None:
            return None
        if name in _MOVES_VALUES:
            return bound if node in _moved(user) else None
        if name not in ("aten.add", "aten.sub") or len(user.args) < 2:
            return None
        first, second = user.args[0], user.args[1]
        other = self.of(second if first is node else first)
        if other is None or (first is node) == (second is node):
            return None
        if name == "aten.add":  # node = user - other
            return (bound[0] - other[1], bound[1] - other[0])
        if first is node:  # node = user + other
            return (bound[0] + other[0], bound[1] + other[1])
        return (other[0] - bound[1], other[1] - bound[0])  # node = other - user

    def of(self, value: object) -> Interval | None:
        """The interval of a node, an int, a bool or a ``SymInt``; None when unbounded."""
        if isinstance(value, torch.fx.Node):
            return self.ranges.get(value)
        if isinstance(value, bool | int):
            return (int(value), int(value))
        if isinstance(value, torch.SymInt):
            return self._symbolic(value)
        return None

    def _symbolic(self, value: torch.SymInt) -> Interval | None:
        bounds = bound_sympy(value.node.expr, self._symbols)
        if not (bounds.lower.is_finite and bounds.upper.is_finite):
            return None
        return (int(bounds.lower), int(bounds.upper))

    def _extent(self, tensor: torch.Tensor) -> int | None:
        """The largest number of elements ``tensor`` may hold."""
        total = 1
        for size in tensor.shape:
            bound = self.of(size)
            if bound is None:
                return None
            total *= bound[1]
        return total

    def _bound(self, node: torch.fx.Node) -> Interval | None:
        value = node.meta.get("val")
        if isinstance(value, torch.SymInt | int) and not isinstance(value, bool):
            return self.of(value)
        if node.target is operator.getitem and (indices := self._indices_of(node)) is not None:
            return indices
        if isinstance(value, list | tuple):  # several outputs (split): the hull of their values
            return self._by_value(node)
        tensor = _tensor(value)
        if tensor is None or tensor.is_floating_point() or tensor.is_complex():
            return None
        by_dtype = _DTYPE_RANGES.get(tensor.dtype)
        by_value = self._by_value(node)
        if by_value is not None and not _within(by_value, INT64):
            by_value = None  # int64 wraps, so its values are unknown (and the bounds stay small)
        known = [b for b in (by_dtype, by_value, self._implied.get(node)) if b is not None]
        return functools.reduce(_meet, known) if known else None

    def _indices_of(self, node: torch.fx.Node) -> Interval | None:
        source, index = node.args
        if not isinstance(source, torch.fx.Node) or index != 1:
            return None
        if op_packet(source) not in _INDEX_OUTPUTS or not source.args:
            return None
        return self._index_range(source.args[0])

    def _index_range(self, source: object) -> Interval | None:
        tensor = _tensor(source.meta.get("val")) if isinstance(source, torch.fx.Node) else None
        extent = None if tensor is None else self._extent(tensor)
        return None if extent is None else (0, max(extent - 1, 0))

    def _by_value(self, node: torch.fx.Node) -> Interval | None:
        if node.op == "placeholder":
            return self._constants.get(node.name)
        if node.op != "call_function":
            return None
        name, args = op_packet(node), node.args
        if node.target is operator.getitem or name in _CASTS:
            return self._read(args[0])
        if name in _MOVES_VALUES:
            return _hull(self.of(a) for a in _moved(node) if isinstance(a, torch.fx.Node | int))
        rules: dict[str, Callable[[torch.fx.Node], Interval | None]] = {
            "aten.arange": self._arange,
            "aten.clamp": self._clamp,
            "aten.cumsum": self._cumsum,
            "aten.argmax": lambda n: self._index_range(n.args[0]),
            "aten.argmin": lambda n: self._index_range(n.args[0]),
            "aten.nonzero": lambda n: self._index_range(n.args[0]),
        }
        if name in rules:
            return rules[name](node)
        if name in _FILLS:
            return _fill(name, args, self.of)
        operands = [self.of(a) for a in args[:2]]
        if name in _UNARY and operands and operands[0] is not None:
            return _UNARY[name](operands[0])
        if name in _BINARY and len(operands) == 2 and operands[0] and operands[1]:
            return _BINARY[name](operands[0], operands[1])
        return None

    def _read(self, source: object) -> Interval | None:
        """The values of ``source`` as a cast or getitem passes them on (None from floats)."""
        if not isinstance(source, torch.fx.Node):
            return None
        value = _tensor(source.meta.get("val"))
        if value is not None and (value.is_floating_point() or value.is_complex()):
            return None
        return self.of(source)

    def _arange(self, node: torch.fx.Node) -> Interval | None:
        ends = [a for a in node.args if not isinstance(a, float)]
        if len(ends) != len(node.args):
            return None
        bounds = [self.of(a) for a in ends[:2]]
        if any(b is None for b in bounds):
            return None
        if len(bounds) == 1:
            bounds.insert(0, (0, 0))
        (start_low, start_high), (end_low, end_high) = bounds  # type: ignore[misc]
        # The values lie between start and end, excluded, in either direction.
        return (min(start_low, end_low + 1), max(start_high, end_high - 1))

    def _clamp(self, node: torch.fx.Node) -> Interval | None:
        source = self.of(node.args[0])
        low = self.of(node.args[1]) if len(node.args) > 1 and node.args[1] is not None else None
        high = self.of(node.args[2]) if len(node.args) > 2 and node.args[2] is not None else None
        if low is not None and high is not None:  # min(max(x, low), high)
            return (min(low[0], high[0]), high[1])
        if source is None:
            return None
        return (
            max(source[0], low[0]) if low else source[0],
            min(source[1], high[1]) if high else source[1],
        )

    def _cumsum(self, node: torch.fx.Node) -> Interval | None:
        source = node.args[0]
        values = self.of(source)
        tensor = _tensor(source.meta.get("val")) if isinstance(source, torch.fx.Node) else None
        if values is None or tensor is None:
            return None
        dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
        if not isinstance(dim, int):
            return None
        length = self.of(tensor.shape[dim]) if tensor.dim() else (1, 1)
        if length is None:
            return None
        steps = max(length[1], 1)
        return (min(values[0], values[0] * steps), max(values[1], values[1] * steps))


def _fill(
    name: str, args: tuple[object, ...], of: Callable[[object], Interval | None]
) -> Interval | None:
    """The value a fill op writes: 0, 1 or its fill argument (None for a float one)."""
    if name in _ZERO_FILLS:
        return (0, 0)
    if name in _ONE_FILLS:
        return (1, 1)
    fill = args[0] if name == "aten.scalar_tensor" else args[1] if len(args) > 1 else None
    return None if isinstance(fill, float) else of(fill)


def _quotients(a: Interval, b: Interval) -> Interval:
    if b[0] <= 0 <= b[1]:
        # PyTorch refuses an integer division by zero: |quotient| <= |dividend|.
        largest = max(abs(a[0]), abs(a[1]))
        return (-largest, largest)
    floors = [x // y for x in a for y in b]
    ceilings = [-(-x // y) for x in a for y in b]
    return (min(floors), max(ceilings))


def _remainders(a: Interval, b: Interval) -> Interval | None:
    largest = max(abs(b[0]), abs(b[1]))
    return (-largest + 1, largest - 1) if largest else None


def _powers(a: Interval, b: Interval) -> Interval | None:
    if b[0] != b[1] or not 0 <= b[0] <= 64:
        return None
    powers = [a[0] ** b[0], a[1] ** b[0]]
    if b[0] % 2 == 0 and a[0] <= 0 <= a[1]:
        powers.append(0)
    return (min(powers), max(powers))


def _absolute(a: Interval) -> Interval:
    low = 0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1]))
    return (low, max(abs(a[0]), abs(a[1])))


_UNARY: dict[str, Callable[[Interval], Interval | None]] = {
    "aten.neg": lambda a: (-a[1], -a[0]),
    "aten.abs": _absolute,
}
_BINARY: dict[str, Callable[[Interval, Interval], Interval | None]] = {
    "aten.add": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "aten.sub": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "aten.mul": _products,
    "aten.div": _quotients,
    "aten.floor_divide": _quotients,
    "aten.remainder": _remainders,
    "aten.fmod": _remainders,
    "aten.pow": _powers,
    # Each operand bounds its side: minimum(True, x) reaches x's lowest value. Not
    # value-moving for index uses: narrowing either operand can change the answer.
    "aten.minimum": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
    "aten.maximum": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
}


def _constant_values(program: ExportedProgram) -> dict[str, Interval]:
    """The interval of each integer parameter, constant and never-mutated buffer, by placeholder name."""
    mutated = set(program.graph_signature.buffers_to_mutate.values())
    values: dict[str, Interval] = {}
    for spec in program.graph_signature.input_specs:
        if spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            continue
        if spec.target is None or spec.target in mutated:
            continue
        tensor = program.state_dict.get(spec.target, program.constants.get(spec.target))
        if not isinstance(tensor, torch.Tensor) or tensor.is_floating_point():
            continue
        if tensor.dtype not in (torch.int32, torch.int64) or tensor.numel() == 0:
            continue  # narrower integers are bounded by their dtype
        if isinstance(tensor, FakeTensor) and (tensor := _real_tensor(tensor)) is None:
            continue
        values[spec.arg.name] = (int(tensor.min()), int(tensor.max()))
    return values


def _real_tensor(fake: FakeTensor) -> torch.Tensor | None:
    """The real tensor ``fake`` was made from, if its fake mode still holds it.

    ExecuTorch hands partitioners a copy of the program whose parameters and
    buffers are fake tensors (``exir.program._fake_program``), made by the
    program's fake mode, whose converter remembers each real tensor it saw.
    """
    converter = fake.fake_mode.fake_tensor_converter
    try:
        seen = converter.meta_converter.describer.lookup_tensor.items()  # type: ignore[no-untyped-call]
        fakes = converter.tensor_memo
    except AttributeError:  # another PyTorch's internals: the values are unknown
        return None
    for real, number in seen:
        if fakes.get(number) is fake and not isinstance(real, FakeTensor):
            return real  # type: ignore[no-any-return]
    return None


def _flat(argument: object) -> list[object]:
    return list(argument) if isinstance(argument, list | tuple) else [argument]


def _moved(node: torch.fx.Node) -> list[object]:
    """The arguments whose values a node of ``_MOVES_VALUES`` passes on, lists flattened."""
    positions = _MOVES_VALUES[op_packet(node)]
    chosen = (
        node.args if positions is None else [node.args[p] for p in positions if p < len(node.args)]
    )
    return [x for argument in chosen for x in _flat(argument)]


def _index_only(
    node: torch.fx.Node, ranges: IntegerRanges, memo: dict[torch.fx.Node, bool]
) -> bool:
    """Whether every reader of ``node`` uses its values as indices, directly or after moving them.

    ``item()`` counts as such a use when the export bounds its result within
    int32 (``torch._check``): a valid input lies there, narrowed or not.
    """
    if node in memo:
        return memo[node]
    memo[node] = False  # a cycle cannot happen in a graph; this guards the recursion
    result = bool(node.users)
    for user in node.users:
        name = op_packet(user)
        if name in _SHAPE_READERS:
            continue
        if name == "aten._local_scalar_dense" and _within(ranges.of(user), INT32):
            continue
        positions = _INDEX_ARGUMENTS.get(name, ())
        as_index = any(
            position < len(user.args) and node in _flat(user.args[position])
            for position in positions
        )
        if not as_index and not (name in _MOVES_VALUES and _index_only(user, ranges, memo)):
            result = False
            break
    memo[node] = result
    return result


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
    return not (_within(ranges.of(node), INT32) or _index_only(node, ranges, memo))


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
        reason = _narrowing(node, ranges, memo, int64=int64) or _narrowing_inside(node, int64=int64)
        if reason is not None:
            reasons[node.name] = reason
    return reasons


_NOT_PROVED = (
    "not proved to fit in 32 bits, and OpenVINO's CPU plugin computes int64 in 32 bits "
    "(compile spec allow_int64_narrowing=true delegates it)"
)


def _narrowing(
    node: torch.fx.Node, ranges: IntegerRanges, memo: dict[torch.fx.Node, bool], *, int64: bool
) -> str | None:
    outputs = node.meta.get("val")
    written = [outputs] if isinstance(outputs, torch.Tensor) else []
    if isinstance(outputs, list | tuple):
        written = [t for t in outputs if isinstance(t, torch.Tensor)]
    if op_packet(node) in FLOAT32_COMPUTED and _integer_result(written):
        # The quotient and remainder lie within their operands; a power may not.
        operands = [node] if op_packet(node) == "aten.pow" else node.args[:2]
        if not all(_within(ranges.of(a), EXACT_IN_FLOAT32) for a in operands):
            return (
                f"OpenVINO's CPU plugin computes integer {op_packet(node)} in float32, exact "
                "only within 2**24, and its operands are not proved to lie there"
            )
    if not int64:
        return None
    if _unbounded_int64(node, ranges, memo):
        return f"writes int64 values {_NOT_PROVED}"
    # A node that reads no values, or moves them to index uses alone, narrows nothing that matters.
    harmless = op_packet(node) in _SHAPE_READERS or (
        op_packet(node) in _MOVES_VALUES
        and (_index_only(node, ranges, memo) or _within(ranges.of(node), INT32))
    )
    for source in [] if harmless else node.all_input_nodes:
        if _unbounded_int64(source, ranges, memo):
            return f"reads int64 values of {source.name} {_NOT_PROVED}"
    return None


def _narrowing_inside(node: torch.fx.Node, *, int64: bool) -> str | None:
    """Why the graphs of a ``cond`` or ``while_loop`` may compute integers narrower, else None.

    Their values are not range-checked, so any integer division or power, and
    (with ``int64``) any int64 tensor in them, keeps the whole op on the CPU.
    """
    for attribute, graph in branches(node):
        for inner in graph.graph.nodes:
            value = inner.meta.get("val")
            written = [value] if isinstance(value, torch.Tensor) else []
            if op_packet(inner) in FLOAT32_COMPUTED and _integer_result(written):
                return (
                    f"its graph {attribute.target} computes integer {op_packet(inner)}, "
                    "which OpenVINO's CPU plugin computes in float32"
                )
            wide = any(t.dtype == torch.int64 for t in written)
            if int64 and wide and not _int32_constant(graph, inner):
                return (
                    f"its graph {attribute.target} holds int64 values ({inner.name}) {_NOT_PROVED}"
                )
            nested = _narrowing_inside(inner, int64=int64)
            if nested is not None:
                return nested
    return None


def _int32_constant(graph: torch.fx.GraphModule, node: torch.fx.Node) -> bool:
    """Whether ``node`` reads a constant of ``graph`` whose values fit in int32."""
    tensor = getattr(graph, str(node.target), None) if node.op == "get_attr" else None
    if isinstance(tensor, FakeTensor):
        tensor = _real_tensor(tensor)
    if not isinstance(tensor, torch.Tensor):
        return False
    return tensor.numel() == 0 or _within((int(tensor.min()), int(tensor.max())), INT32)


def _integer_result(written: list[torch.Tensor]) -> bool:
    return any(not (t.is_floating_point() or t.is_complex()) for t in written)
