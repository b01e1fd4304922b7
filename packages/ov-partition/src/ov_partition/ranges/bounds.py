"""The interval of every integer tensor and int of one exported program."""

from __future__ import annotations

import functools
import operator
from typing import Any

import torch
from torch.export import ExportedProgram
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

from ov_partition.op_support import op_packet
from ov_partition.ranges.constants import constant_values
from ov_partition.ranges.index_bounds import implied_by_indexing
from ov_partition.ranges.intervals import INT64, Interval, hull, meet, within
from ov_partition.ranges.op_tables import CASTS, FILLS, INDEX_OUTPUTS, MOVES_VALUES, moved
from ov_partition.ranges.range_rules import (
    BINARY,
    DTYPE_RANGES,
    NODE_RULES,
    UNARY,
    fill,
    index_range,
    tensor_or_none,
)


class IntegerRanges:
    """The interval of every integer tensor and int of one exported program.

    Args:
        program: An exported program (ATen or edge dialect).

    Attributes:
        ranges: Each node of the graph to its interval; None when unbounded.
    """

    def __init__(self, program: ExportedProgram) -> None:
        """Bound every node of ``program``'s graph, in graph order."""
        self._symbols: dict[Any, ValueRanges[Any]] = {
            symbol: bounds
            for symbol, bounds in program.range_constraints.items()
            if getattr(symbol, "is_Symbol", False)
        }
        self._constants = constant_values(program)
        self._implied: dict[torch.fx.Node, Interval] = {}
        self.ranges: dict[torch.fx.Node, Interval | None] = {}
        for node in program.graph.nodes:
            self.ranges[node] = self._bound(node)
        # A valid index lies within the dimension it indexes (PyTorch refuses
        # others), which bounds the values it was computed from; bound again.
        self._implied = implied_by_indexing(program.graph, self.of)
        if self._implied:
            for node in program.graph.nodes:
                self.ranges[node] = self._bound(node)

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
        # The export's ranges (range_constraints, keyed by sympy symbols) bound a
        # SymInt's expression; the ShapeEnv's own bound_sympy would use its
        # ranges instead, which need not be the program's.
        bounds = bound_sympy(value.node.expr, self._symbols)
        if not (bounds.lower.is_finite and bounds.upper.is_finite):
            return None
        return (int(bounds.lower), int(bounds.upper))

    def _bound(self, node: torch.fx.Node) -> Interval | None:
        value = node.meta.get("val")
        if isinstance(value, torch.SymInt | int) and not isinstance(value, bool):
            return self.of(value)
        if node.target is operator.getitem and (indices := self._indices_of(node)) is not None:
            return indices
        if isinstance(value, list | tuple):  # several outputs (split): the hull of their values
            return self._by_value(node)
        tensor = tensor_or_none(value)
        if tensor is None or tensor.is_floating_point() or tensor.is_complex():
            return None
        by_dtype = DTYPE_RANGES.get(tensor.dtype)
        by_value = self._by_value(node)
        if by_value is not None and not within(by_value, INT64):
            by_value = None  # int64 wraps, so its values are unknown (and the bounds stay small)
        known = [b for b in (by_dtype, by_value, self._implied.get(node)) if b is not None]
        return functools.reduce(meet, known) if known else None

    def _indices_of(self, node: torch.fx.Node) -> Interval | None:
        """The positions output 1 of ``sort``, ``topk``, ``max.dim``, a pooling holds."""
        source, index = node.args
        if not isinstance(source, torch.fx.Node) or index != 1:
            return None
        if op_packet(source) not in INDEX_OUTPUTS or not source.args:
            return None
        return index_range(source.args[0], self.of)

    def _by_value(self, node: torch.fx.Node) -> Interval | None:
        """The interval ``node``'s op gives its values, before dtype and index bounds."""
        if node.op == "placeholder":
            return self._constants.get(node.name)
        if node.op != "call_function":
            return None
        name, args = op_packet(node), node.args
        if node.target is operator.getitem or name in CASTS:
            return self._read(args[0])
        if name in MOVES_VALUES:
            return hull(self.of(a) for a in moved(node) if isinstance(a, torch.fx.Node | int))
        if name in NODE_RULES:
            return NODE_RULES[name](node, self.of)
        if name in FILLS:
            return fill(name, args, self.of)
        operands = [self.of(a) for a in args[:2]]
        if name in UNARY and operands and operands[0] is not None:
            return UNARY[name](operands[0])
        if name in BINARY and len(operands) == 2 and operands[0] and operands[1]:
            return BINARY[name](operands[0], operands[1])
        return None

    def _read(self, source: object) -> Interval | None:
        """The values of ``source`` as a cast or getitem passes them on (None from floats)."""
        if not isinstance(source, torch.fx.Node):
            return None
        value = tensor_or_none(source.meta.get("val"))
        if value is not None and (value.is_floating_point() or value.is_complex()):
            return None
        return self.of(source)
