"""Tensors and scalars to and from the native runner's values.

A tensor input is passed by pointer when its memory is already in the
method's dim order, and copied into that order otherwise; an output is copied
out of the program's planned memory, which the next call reuses.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence
from typing import Any

import torch

from ov_runtime.native.runner import BOOL, DOUBLE, INT, MAX_RANK, TENSOR, Value
from ov_spec import DTYPES

SCALAR_TYPES = {getattr(torch, dtype.torch_name): dtype.scalar_type for dtype in DTYPES}
"""ExecuTorch's ScalarType code of each torch dtype a program may take (``ov_spec.DTYPES``)."""
TORCH_DTYPES = {code: dtype for dtype, code in SCALAR_TYPES.items()}
"""The torch dtype of each ScalarType code: :data:`SCALAR_TYPES` read backwards."""


def laid_out(tensor: torch.Tensor, order: Sequence[int]) -> torch.Tensor:
    """``tensor`` with its memory in ``order`` (the method's dim order): itself, or a copy.

    ExecuTorch copies an input's bytes into its planned buffer as they are, so
    a tensor laid out otherwise (transposed, channels_last for a contiguous
    input, a slice with gaps, a negated or conjugated view) is copied here.
    """
    if tensor.is_neg() or tensor.is_conj():
        tensor = tensor.resolve_neg().resolve_conj()
    if _is_identity(order) and tensor.is_contiguous():
        return tensor  # the common case, without reading strides one by one
    if _dense_strides(tensor.shape, order) == _strides(tensor, order):
        return tensor
    inverse = sorted(range(len(order)), key=order.__getitem__)
    return tensor.permute(*order).contiguous().permute(*inverse)


@functools.cache
def _is_identity(order: Sequence[int]) -> bool:
    return list(order) == list(range(len(order)))


def _dense_strides(sizes: Sequence[int], order: Sequence[int]) -> dict[int, int]:
    """The strides of each dim of more than one element in a dense layout of ``order``."""
    strides, step = {}, 1
    for dim in reversed(order):
        if sizes[dim] > 1:
            strides[dim] = step
        step *= sizes[dim]
    return strides


def _strides(tensor: torch.Tensor, order: Sequence[int]) -> dict[int, int]:
    return {dim: tensor.stride(dim) for dim in order if tensor.shape[dim] > 1}


class InputWriter:
    """Writes a method's inputs into its native values, each tensor's description only when it changes.

    A call with the shapes of the last one (the common case) sets each
    tensor's data pointer alone.

    Args:
        natives: The method's native inputs (``NativeMethod.inputs``).
        orders: Each input's dim order (empty for a scalar).
    """

    def __init__(self, natives: ctypes.Array[Value], orders: Sequence[Sequence[int]]) -> None:
        self._natives = natives
        self._orders = orders
        self._written: list[tuple[torch.Size, torch.dtype] | None] = [None] * len(natives)

    def write(self, values: Sequence[Any]) -> None:
        """Write each input: a tensor (by pointer, not copied), an int, a float or a bool.

        Each tensor must be :func:`laid_out` in its input's dim order and stay
        alive while the native values are used.

        Raises:
            TypeError: Another kind of value, or a tensor of a dtype programs do not take.
            ValueError: A tensor of rank above 16.
        """
        for index, (native, value) in enumerate(zip(self._natives, values, strict=True)):
            if isinstance(value, torch.Tensor):
                described = (value.shape, value.dtype)
                if self._written[index] != described:
                    self._written[index] = None  # until the description is whole
                    _describe(native, value, self._orders[index])
                    self._written[index] = described
                native.data = value.data_ptr()
            else:
                self._written[index] = None
                _write_scalar(native, value)


def _describe(native: Value, tensor: torch.Tensor, order: Sequence[int]) -> None:
    scalar_type = SCALAR_TYPES.get(tensor.dtype)
    if scalar_type is None:
        raise TypeError(f"tensors of dtype {tensor.dtype} are not taken")
    rank = tensor.dim()
    if rank > MAX_RANK:
        raise ValueError(f"a tensor of rank {rank}; at most {MAX_RANK} is taken")
    native.kind, native.dtype, native.rank = TENSOR, scalar_type, rank
    native.sizes[:rank] = tensor.shape
    native.dim_order[:rank] = order


def _write_scalar(native: Value, value: Any) -> None:
    if isinstance(value, bool):
        native.kind, native.integer = BOOL, int(value)
    elif isinstance(value, int):
        native.kind, native.integer = INT, value
    elif isinstance(value, float):
        native.kind, native.real = DOUBLE, value
    else:
        raise TypeError(f"an input of type {type(value).__name__} is not taken")


KEPT_LAYOUTS = 64
"""Most output layouts an :class:`OutputReader` keeps before it starts over."""
_DESCRIPTION = Value.data.offset
"""Bytes of a :class:`Value` that describe it (kind, dtype, rank, sizes, dim order), before its data."""


class OutputReader:
    """Copies a method's outputs out of its native values, which the next call reuses.

    The sizes and strides of a tensor output are worked out once per
    description (its bytes before the data pointer) and kept.
    """

    def __init__(self) -> None:
        self._layouts: dict[bytes, tuple[list[int], list[int], torch.dtype]] = {}

    def read(self, outputs: Sequence[Value]) -> list[Any]:
        """A copy of each output: a tensor in its dim order, an int, a float or a bool."""
        return [self._read(output) for output in outputs]

    def _read(self, value: Value) -> Any:
        if value.kind == INT:
            return int(value.integer)
        if value.kind == BOOL:
            return bool(value.integer)
        if value.kind == DOUBLE:
            return float(value.real)
        description = ctypes.string_at(ctypes.addressof(value), _DESCRIPTION)
        layout = self._layouts.get(description)
        if layout is None:
            if len(self._layouts) >= KEPT_LAYOUTS:
                self._layouts.clear()  # shapes that change every call
            layout = self._layouts[description] = _layout(value)
        tensor = torch.empty_strided(layout[0], layout[1], dtype=layout[2])
        if value.nbytes:
            ctypes.memmove(tensor.data_ptr(), value.data, value.nbytes)
        return tensor


def _layout(value: Value) -> tuple[list[int], list[int], torch.dtype]:
    """The sizes, dense strides in its dim order and dtype of a tensor output."""
    sizes = list(value.sizes[: value.rank])
    strides = [0] * value.rank
    step = 1
    for dim in reversed(value.dim_order[: value.rank]):
        strides[dim] = step
        step *= max(sizes[dim], 1)
    return sizes, strides, TORCH_DTYPES[value.dtype]
