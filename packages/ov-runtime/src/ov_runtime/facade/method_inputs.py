"""Check a method's inputs before ExecuTorch sees them, naming what is wrong.

ExecuTorch refuses a bad input with an error code only (``set_inputs() ...
failed with error 0x10``), and copies a tensor's bytes into its planned buffer
without looking at the tensor's memory order. The checks here come from the
program itself, read in place from the ``.pte``: for each tensor input its
dtype, planned sizes, dim order, and whether it is static (every size fixed)
or bounded (each size at most its planned one); for each scalar input its kind
and the value the program was exported with, which ExecuTorch 1.5 requires
again. ExecuTorch records staticness per tensor, not per dimension, so a
dimension that export fixed inside a bounded tensor is left for the delegate
to refuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from ov_runtime.exceptions import ExecutionError
from ov_runtime.facade.program_reader import Plan, PlannedValue
from ov_runtime.facade.values import TORCH_DTYPES
from ov_runtime.native.runner import BOOL, DOUBLE, INT, TENSOR

_SCALARS = {INT: int, DOUBLE: float, BOOL: bool}


@dataclass(frozen=True)
class MethodInput:
    """What a method takes at one input position.

    Attributes:
        kind: ``tensor``, or the Python type of a scalar input (``int``,
            ``float``, ``bool``), or None for another kind ExecuTorch checks itself.
        dtype: A tensor's dtype (None where the dtype table does not name it).
        bounds: A tensor's planned sizes: the sizes of a static tensor, the
            upper bounds of a bounded one.
        dim_order: The order of a tensor's dims in memory (``(0, 2, 3, 1)``
            for channels_last).
        static: Whether every size must equal its bound.
        value: A scalar input's value in the program.
    """

    kind: type | str | None
    dtype: torch.dtype | None = None
    bounds: tuple[int, ...] = ()
    dim_order: tuple[int, ...] = ()
    static: bool = False
    value: Any = None


def planned_inputs(plan: Plan) -> list[MethodInput]:
    """What each input of the method ``plan`` (read by :func:`read_plans`) takes."""
    return [_input(value) for value in plan.inputs]


def _input(value: PlannedValue) -> MethodInput:
    if value.kind == TENSOR:
        return MethodInput(
            "tensor",
            dtype=TORCH_DTYPES.get(value.scalar_type),
            bounds=value.sizes,
            dim_order=value.dim_order,
            static=value.static,
        )
    if value.kind in _SCALARS:
        return MethodInput(_SCALARS[value.kind], value=value.value)
    return MethodInput(None)


def as_input_list(inputs: Any, count: int, method: str) -> list[Any]:
    """The inputs as a list: a sequence as it is, one tensor for a method of one input.

    Raises:
        TypeError: ``inputs`` is None, a string, or another non-sequence.
        ExecutionError: The number of inputs is not the method's.
    """
    if isinstance(inputs, torch.Tensor):
        if count == 1:
            return [inputs]
        raise ExecutionError(
            f"method {method!r} takes {_inputs(count)}; one tensor was given (pass the inputs "
            "as a list or tuple)"
        )
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, Sequence):
        raise TypeError(
            f"the inputs of method {method!r} are a sequence (list or tuple) of its {count} "
            f"tensors and scalars, or one tensor for a method of one input; got "
            f"{type(inputs).__name__}"
        )
    if len(inputs) != count:
        given = f"{len(inputs)} {'was' if len(inputs) == 1 else 'were'} given"
        raise ExecutionError(f"method {method!r} takes {_inputs(count)}; {given}")
    return list(inputs)


def _inputs(count: int) -> str:
    return f"{count} input" if count == 1 else f"{count} inputs"


def check_inputs(specs: Sequence[MethodInput], inputs: Sequence[Any]) -> None:
    """Check each input against what the method takes at its position.

    Raises:
        ExecutionError: An input the method does not take; the message names the
            input, what the method takes and what was given.
    """
    for index, (spec, value) in enumerate(zip(specs, inputs, strict=True)):
        if spec.kind == "tensor":
            _check_tensor(index, spec, value)
        elif isinstance(spec.kind, type):
            _check_scalar(index, spec, value)


def _check_scalar(index: int, spec: MethodInput, value: Any) -> None:
    assert isinstance(spec.kind, type)
    given_kind = bool if isinstance(value, bool) else type(value)
    if given_kind is not spec.kind:
        raise ExecutionError(
            f"input {index} is {type(value).__name__}; the method takes {spec.kind.__name__}"
        )
    if value != spec.value:
        raise ExecutionError(
            f"input {index} is {value!r}; the method was exported with {spec.value!r} there, "
            "and ExecuTorch 1.5 runs a scalar input only with the value it was exported with"
        )


def _check_tensor(index: int, spec: MethodInput, value: Any) -> None:
    if not isinstance(value, torch.Tensor):
        raise ExecutionError(
            f"input {index} is {type(value).__name__}; the method takes a tensor of shape "
            f"{spec.bounds}"
        )
    if not value.is_cpu:
        raise ExecutionError(
            f"input {index} is on device {value.device}; the method takes tensors in CPU memory"
        )
    if value.layout != torch.strided or value.is_nested:
        kind = "nested" if value.is_nested else str(value.layout).removeprefix("torch.")
        raise ExecutionError(f"input {index} is a {kind} tensor; the method takes a dense one")
    if spec.dtype is not None and value.dtype != spec.dtype:
        raise ExecutionError(
            f"input {index} has dtype {value.dtype}; the method takes {spec.dtype}"
        )
    shape = tuple(value.shape)
    if shape != spec.bounds:
        _check_sizes(index, shape, spec)


def _check_sizes(index: int, shape: tuple[int, ...], spec: MethodInput) -> None:
    bounds = spec.bounds
    if len(shape) != len(bounds):
        raise ExecutionError(
            f"input {index} has shape {shape}; the method takes rank {len(bounds)} "
            f"(planned for at most {bounds})"
        )
    for dim, (size, bound) in enumerate(zip(shape, bounds, strict=True)):
        if spec.static and size != bound:
            raise ExecutionError(
                f"input {index} has shape {shape}; the method takes the static shape {bounds} "
                f"(dimension {dim} is {size}, not {bound})"
            )
        if size > bound:
            raise ExecutionError(
                f"input {index} has shape {shape}; dimension {dim} is {size}, past its bound "
                f"of {bound} (the method takes at most {bounds})"
            )
