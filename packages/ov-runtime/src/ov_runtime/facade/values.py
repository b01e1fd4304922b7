"""Tensors and scalars into the native runner's values.

A tensor input is passed by pointer when its memory is already in the
method's dim order, and copied into that order otherwise. Outputs are copied
out of the program's planned memory, which the next call reuses, by the
compiled calls (``ov_runtime.native.runner.CompiledCalls``), in the dtypes of
:data:`TORCH_DTYPES`.
"""

from __future__ import annotations

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


def write_value(native: Value, value: Any, order: Sequence[int] = ()) -> None:
    """Write an input into ``native``: a tensor (by pointer, not copied), an int, a float or a bool.

    Args:
        native: The method's native value at the input's position.
        value: The input; a tensor must be :func:`laid_out` in ``order`` and
            stay alive while the value is used.
        order: A tensor input's dim order.

    Raises:
        TypeError: Another kind of value, or a tensor of a dtype programs do not take.
        ValueError: A tensor of rank above 16.
    """
    if isinstance(value, torch.Tensor):
        scalar_type = SCALAR_TYPES.get(value.dtype)
        if scalar_type is None:
            raise TypeError(f"tensors of dtype {value.dtype} are not taken")
        rank = value.dim()
        if rank > MAX_RANK:
            raise ValueError(f"a tensor of rank {rank}; at most {MAX_RANK} is taken")
        native.kind, native.dtype, native.rank = TENSOR, scalar_type, rank
        native.sizes[:rank] = value.shape
        native.dim_order[:rank] = order
        native.data = value.data_ptr()
    elif isinstance(value, bool):
        native.kind, native.integer = BOOL, int(value)
    elif isinstance(value, int):
        native.kind, native.integer = INT, value
    elif isinstance(value, float):
        native.kind, native.real = DOUBLE, value
    else:
        raise TypeError(f"an input of type {type(value).__name__} is not taken")
