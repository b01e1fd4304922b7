"""Check a method's inputs before ExecuTorch sees them, naming what is wrong.

ExecuTorch refuses a bad input with an error code only (``set_inputs() ...
failed with error 0x10``). The checks here come from the method's metadata
(dtype, rank and planned sizes of each tensor input) and from the program
itself, which says whether each input tensor is static (every dimension fixed)
or bounded (each dimension at most its planned size). ExecuTorch records this
per tensor, not per dimension, so a dimension that export fixed inside a
bounded tensor is left for the delegate to refuse.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from executorch.exir._serialize._flatbuffer_program import _patch_generated_flatbuffer_aliases
from executorch.exir._serialize.generated.executorch_flatbuffer.KernelTypes import KernelTypes
from executorch.exir._serialize.generated.executorch_flatbuffer.Program import (
    Program as FlatProgram,
)
from executorch.exir._serialize.generated.executorch_flatbuffer.Tensor import Tensor as FlatTensor
from executorch.exir._serialize.generated.executorch_flatbuffer.TensorShapeDynamism import (
    TensorShapeDynamism,
)

from ov_runtime.exceptions import ExecutionError
from ov_spec import DTYPES

# ExecuTorch's ScalarType code of each dtype a program may take.
_DTYPES = {dtype.scalar_type: getattr(torch, dtype.torch_name) for dtype in DTYPES}


@functools.cache
def _generated_reader_ready() -> None:
    # ExecuTorch's generated flatbuffer classes refer to each other through
    # module names; its own deserializer patches them into classes first.
    _patch_generated_flatbuffer_aliases()


def static_inputs(pte: bytes, method: str) -> list[bool]:
    """Whether each input of ``method`` is a static tensor (False for bounded ones and scalars).

    Reads the ``.pte``'s flatbuffer in place with ExecuTorch's generated
    reader, touching only the method's inputs.
    """
    _generated_reader_ready()
    program = FlatProgram.GetRootAs(pte, 0)
    for index in range(program.ExecutionPlanLength()):
        plan = program.ExecutionPlan(index)
        if plan.Name().decode() != method:
            continue
        static = []
        for position in range(plan.InputsLength()):
            value = plan.Values(plan.Inputs(position))
            table = value.Val()
            if value.ValType() != KernelTypes.Tensor or table is None:
                static.append(False)
                continue
            tensor = FlatTensor()
            tensor.Init(table.Bytes, table.Pos)
            static.append(tensor.ShapeDynamism() == TensorShapeDynamism.STATIC)
        return static
    return []


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


@dataclass(frozen=True)
class TensorInput:
    """What a method takes as one tensor input.

    Attributes:
        dtype: Its dtype (None for one the dtype table does not name).
        bounds: Its planned sizes: the sizes of a static tensor, the upper
            bounds of a bounded one.
        static: Whether every size must equal its bound.
    """

    dtype: torch.dtype | None
    bounds: tuple[int, ...]
    static: bool


def tensor_inputs(meta: Any, static: Sequence[bool]) -> list[TensorInput | None]:
    """What ``meta`` (ExecuTorch's ``MethodMeta``) says of each input; None for a scalar.

    Args:
        meta: The method's metadata.
        static: Whether each input is a static tensor (see :func:`static_inputs`).
    """
    specs: list[TensorInput | None] = []
    for index in range(meta.num_inputs()):
        try:
            planned = meta.input_tensor_meta(index)
        except RuntimeError:  # a scalar input: ExecuTorch checks its type itself
            specs.append(None)
            continue
        is_static = index < len(static) and static[index]
        specs.append(TensorInput(_DTYPES.get(planned.dtype()), tuple(planned.sizes()), is_static))
    return specs


def check_inputs(specs: Sequence[TensorInput | None], inputs: Sequence[Any]) -> None:
    """Check each tensor input's dtype, rank and sizes against what the method takes.

    Raises:
        ExecutionError: An input the method does not take; the message names the
            input, what the method takes and what was given.
    """
    for index, (spec, value) in enumerate(zip(specs, inputs, strict=True)):
        if spec is None:
            continue
        if not isinstance(value, torch.Tensor):
            raise ExecutionError(
                f"input {index} is {type(value).__name__}; the method takes a tensor of shape "
                f"{spec.bounds}"
            )
        if spec.dtype is not None and value.dtype != spec.dtype:
            raise ExecutionError(
                f"input {index} has dtype {value.dtype}; the method takes {spec.dtype}"
            )
        shape = tuple(value.shape)
        if shape == spec.bounds:
            continue
        _check_sizes(index, shape, spec)


def _check_sizes(index: int, shape: tuple[int, ...], spec: TensorInput) -> None:
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
