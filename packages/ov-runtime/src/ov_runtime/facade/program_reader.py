"""Read a ``.pte``'s methods and their inputs in place, without ExecuTorch's compiler.

A ``.pte`` is a flatbuffer of ExecuTorch's schema (``schema/program.fbs``).
ExecuTorch's generated Python readers live in ``executorch.exir``, whose import
pulls in ``torch._dynamo`` and ``torch._inductor`` (about 15 s on 2 cores); a
process that only runs programs reads the few fields it needs here with the
``flatbuffers`` library's table reader. Each slot below is the field's
position in the schema's table.
"""

from __future__ import annotations

from dataclasses import dataclass
from struct import error as struct_error
from typing import Any

import flatbuffers
from flatbuffers.table import Table

from ov_runtime.native.runner import BOOL, DOUBLE, INT, TENSOR  # KernelTypes' tags

# Table slots of program.fbs: the field's index in its table.
_PROGRAM_EXECUTION_PLAN = 1
_PLAN_NAME, _PLAN_VALUES, _PLAN_INPUTS, _PLAN_OUTPUTS = 0, 2, 3, 4
_EVALUE_TYPE, _EVALUE_VAL = 0, 1
_TENSOR_SCALAR_TYPE, _TENSOR_SIZES, _TENSOR_DIM_ORDER, _TENSOR_DYNAMISM = 0, 2, 3, 8
_SCALAR_VALUE = 0  # Int.int_val, Double.double_val, Bool.bool_val

STATIC = 0  # TensorShapeDynamism


@dataclass(frozen=True)
class PlannedValue:
    """One input of a method as the program records it.

    Attributes:
        kind: The value's KernelTypes tag (:data:`TENSOR`, :data:`INT`, ...; 0 for none).
        scalar_type: A tensor's ExecuTorch ScalarType code.
        sizes: A tensor's planned sizes.
        dim_order: A tensor's dim order.
        static: Whether a tensor's shape is static.
        value: A scalar's value.
    """

    kind: int
    scalar_type: int = -1
    sizes: tuple[int, ...] = ()
    dim_order: tuple[int, ...] = ()
    static: bool = False
    value: Any = None


@dataclass(frozen=True)
class Plan:
    """One method (execution plan) of a program.

    Attributes:
        name: The method's name.
        inputs: What the program records of each input.
        num_outputs: The number of outputs.
    """

    name: str
    inputs: tuple[PlannedValue, ...]
    num_outputs: int


def _offset(table: Table, slot: int) -> int:
    return int(table.Offset(4 + 2 * slot))


def _vector(table: Table, slot: int, flags: Any, width: int) -> tuple[Any, ...]:
    offset = _offset(table, slot)
    if not offset:
        return ()
    start = table.Vector(offset)
    return tuple(table.Get(flags, start + i * width) for i in range(table.VectorLen(offset)))


def _table_at(table: Table, slot: int, index: int) -> Table:
    start = table.Vector(_offset(table, slot)) + index * 4
    return Table(table.Bytes, table.Indirect(start))


def _scalar(table: Table, slot: int, flags: Any, default: Any) -> Any:
    offset = _offset(table, slot)
    return table.Get(flags, table.Pos + offset) if offset else default


def _input(value: Table) -> PlannedValue:
    kind = _scalar(value, _EVALUE_TYPE, flatbuffers.number_types.Uint8Flags, 0)
    offset = _offset(value, _EVALUE_VAL)
    if not offset:
        return PlannedValue(0)
    val = Table(value.Bytes, 0)
    value.Union(val, offset)
    types = flatbuffers.number_types
    if kind == TENSOR:
        return PlannedValue(
            TENSOR,
            scalar_type=_scalar(val, _TENSOR_SCALAR_TYPE, types.Int8Flags, 0),
            sizes=_vector(val, _TENSOR_SIZES, types.Int32Flags, 4),
            dim_order=_vector(val, _TENSOR_DIM_ORDER, types.Uint8Flags, 1),
            static=_scalar(val, _TENSOR_DYNAMISM, types.Int8Flags, STATIC) == STATIC,
        )
    flags = {INT: types.Int64Flags, DOUBLE: types.Float64Flags, BOOL: types.BoolFlags}.get(kind)
    if flags is None:
        return PlannedValue(kind)
    return PlannedValue(kind, value=_scalar(val, _SCALAR_VALUE, flags, 0))


def read_plans(pte: bytes) -> list[Plan]:
    """The methods of the program in ``pte`` (the ``.pte`` bytes), read in place.

    Raises:
        ValueError: The bytes end inside a table or vector they point to (a
            cut or damaged file).
    """
    try:
        program = Table(pte, flatbuffers.encode.Get(flatbuffers.packer.uoffset, pte, 0))
        plans = []
        offset = _offset(program, _PROGRAM_EXECUTION_PLAN)
        for index in range(program.VectorLen(offset) if offset else 0):
            plan = _table_at(program, _PROGRAM_EXECUTION_PLAN, index)
            name = plan.String(plan.Pos + _offset(plan, _PLAN_NAME)).decode()
            positions = _vector(plan, _PLAN_INPUTS, flatbuffers.number_types.Int32Flags, 4)
            inputs = tuple(_input(_table_at(plan, _PLAN_VALUES, i)) for i in positions)
            outputs = _offset(plan, _PLAN_OUTPUTS)
            plans.append(Plan(name, inputs, plan.VectorLen(outputs) if outputs else 0))
    except (IndexError, UnicodeDecodeError, struct_error) as error:
        raise ValueError(f"the program's flatbuffer is cut or damaged ({error})") from error
    return plans
