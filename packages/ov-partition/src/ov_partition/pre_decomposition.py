"""Decompositions the partitioner applies before ExecuTorch's own, into ops computing the same.

ExecuTorch's ``to_edge_transform_and_lower`` hands each partitioner the ATen
program first (``Partitioner.transform_for_pre_decomposition``), before its
default decompositions and its edge checker; :func:`decompose_for_lowering`
runs :data:`DECOMPOSITIONS` there:

* ``to_edge`` refuses an op outside core ATen that has no decomposition of its
  own: ``aten.round.decimals``, ``aten.cumprod``, ``aten.exp2`` and
  ``aten.linalg_solve_triangular``, which ``MultivariateNormal.log_prob`` calls.
* ExecuTorch 1.5.1's CPU kernel of integer ``remainder`` takes the dividend's
  sign (C's ``%``: ``-7 % 2`` gives -1, PyTorch 1), so an integer remainder
  left on the CPU would be wrong.
* ExecuTorch 1.5.1's ``pow`` kernel of integers computes in double, so a
  power past the dtype's range saturates where PyTorch's wraps; repeated
  squaring with ``mul`` wraps on both sides.
* ``ceil``, ``floor``, ``round`` and ``trunc`` of an integer tensor return it
  unchanged; OpenVINO, and ExecuTorch 1.5.1's ``trunc`` kernel, round it
  through float32.
* ExecuTorch 1.5.1's comparison, ``maximum``, ``minimum`` and logical
  (``logical_and``, ``or``, ``xor``) kernels compute mixed dtypes in the wider
  one, where PyTorch computes in their common dtype (:func:`torch.result_type`:
  ``maximum`` of a uint8 tensor and a 0-d int64 ``-63`` compares with 193, and
  ``logical_xor`` of a 0-d int32 256 and a uint8 tensor reads 256 as 0, false);
  its ``select_scatter`` and ``slice_scatter`` of a source of another dtype
  give the wrong dtype or values, where PyTorch casts the source first.
* ExecuTorch 1.5.1 plans ``nonzero``'s ``(count, rank)`` result in the
  column-major layout of its fake kernel, while its CPU kernel writes it row by
  row, so a ``nonzero`` left on the CPU reads back scrambled. A delegate writes
  the planned layout, so ``nonzero`` should be delegated; but OpenVINO cannot
  read every input exactly (it truncates int64 to 32 bits, so ``2**32`` reads as
  zero, and the delegate takes no float64). ``nonzero(x != 0)`` is the same for
  every dtype (NaN is nonzero, ``-0.0`` is zero): the comparison stays on the
  CPU when OpenVINO cannot compute it, and ``nonzero`` of its bool result is
  delegated, with a clone into the contiguous layout that ExecuTorch's CPU
  kernels after it take (its reductions refuse the column-major one).
* PyTorch sorts NaN above every number (``sort``, ``topk``); OpenVINO's
  ``TopK`` and ExecuTorch 1.5.1's ``sort`` kernel do not. A float tensor is
  sorted by a key without NaN, and its values gathered at the key's indices.
* ExecuTorch 1.5.1's ``sum`` kernel over dims accumulates int32 and int64 in
  floating point; running sums (``cumsum``) add in the dtype.
* ExecuTorch 1.5.1's ``_softmax`` and ``_log_softmax`` kernels give 1 and 0
  for a 0-d NaN, where PyTorch gives NaN.
* ExecuTorch 1.5.1's integer ``div`` kernels raise SIGFPE for the most
  negative integer over -1, which ends the process; its ``cumsum`` kernel
  fails on a 0-d tensor and its ``gather`` kernel on int32 indices, both of
  which PyTorch takes; its ``amax`` and ``amin`` kernels abort the process on
  an empty input, and its ``scatter`` kernel crashes on the 0-d index of a
  1-d or 0-d tensor, which PyTorch reads as one of shape ``(1,)``. OpenVINO's
  ``IsNaN`` and ``IsInf`` refuse integers.
* ExecuTorch 1.5.1's ``to_edge`` turns the int of ``a + 1`` into a 0-d int64
  tensor, which promotes a 0-d integer ``a`` (int8 and the rest) to int64;
  PyTorch computes in ``a``'s dtype. ``add``, ``sub``, ``rsub``, ``mul`` and
  the rounding divisions take the int as a 0-d tensor of that dtype.
* ExecuTorch 1.5.1's ``to_edge`` drops the empty tensors of a ``cat`` and
  keeps the dtype of the rest, where PyTorch's result dtype counts every
  tensor: ``cat([int64, empty bfloat16])`` returned int64. Each tensor is cast
  to the result dtype first.
* Decomposing ``split_with_sizes`` into equal pieces of a tensor with a
  dynamic size fixes that size at its example value (PyTorch 2.13's fake
  tensor cache guards on the second ``as_strided`` of the same shape):
  ``to_edge`` of ``torch.split(x, 1, 1)`` or ``torch.chunk`` planned memory
  for the example batch alone, and a larger one failed in ``set_inputs``
  (error 0x10). Slices of the same pieces keep the size dynamic.
* ExecuTorch 1.5.1's ``copy`` kernel fails to broadcast a 0-d source and
  writes floats into bools wrong, and its ``squeeze_copy`` fails on a listed
  dim whose size is not 1, which PyTorch leaves in place.

Each turns into ops that OpenVINO and ExecuTorch's kernels both compute exactly.
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
from collections.abc import Callable
from typing import Any, cast

import torch
from torch.fx.experimental.symbolic_shapes import guard_or_false

aten = torch.ops.aten


def round_decimals(x: torch.Tensor, *, decimals: int = 0) -> torch.Tensor:
    """``torch.round(x, decimals=decimals)`` as PyTorch's kernel computes it.

    PyTorch scales by ``10**|decimals|`` in the tensor's own precision, rounds
    half to even, and scales back: multiply then divide for positive
    ``decimals``, divide then multiply for negative ones.
    """
    if decimals == 0:
        return torch.round(x)
    scale = float(10 ** abs(decimals))
    if decimals > 0:
        return torch.round(x * scale) / scale
    return torch.round(x / scale) * scale


def exp2_as_power(x: torch.Tensor) -> torch.Tensor:
    """``torch.exp2(x)`` as ``torch.pow(2.0, x)``: a float result for every dtype, within a unit in the last place."""
    return torch.pow(2.0, x)


def running_products(
    x: torch.Tensor, dim: int, *, dtype: torch.dtype | None = None
) -> torch.Tensor:
    """``torch.cumprod(x, dim, dtype=dtype)`` as a scan of ``ceil(log2(n))`` shifted products.

    Step ``k`` multiplies each element by the one ``2**k`` before it along
    ``dim`` (by 1 where there is none), so after the last step each element is
    the product of its prefix (Hillis and Steele's scan). The result's dtype
    is PyTorch's: ``dtype`` when given, else int64 for integers and bools, else
    the input's. Integers wrap as PyTorch's, since a wrapping product does not
    depend on the order; floats are the same product in another association,
    so they agree to rounding (PyTorch accumulates float32 in double, so a
    prefix whose float32 partial products overflow may differ). The size
    along ``dim`` must be static; a dynamic one is left whole (``to_edge`` then
    refuses it, as without this).
    """
    if dtype is None and not x.is_floating_point():
        dtype = torch.int64
    if dtype is not None:
        x = x.to(dtype)
    if x.dim() == 0:
        return x.clone()
    dim %= x.dim()
    n = x.shape[dim]
    if not isinstance(n, int):
        return NotImplemented
    shift = 1
    while shift < n:
        before = torch.cat(
            [torch.ones_like(x.narrow(dim, 0, shift)), x.narrow(dim, 0, n - shift)], dim
        )
        x = x * before
        shift *= 2
    return x


def solve_triangular(
    a: torch.Tensor,
    b: torch.Tensor,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
) -> torch.Tensor:
    """``torch.linalg.solve_triangular(a, b, ...)`` by substitution, one row of the result at a time.

    ``a`` is ``(*, n, n)`` and ``b`` is ``(*, n, k)`` (``(*, k, n)`` when
    ``left`` is false), batch dims broadcast; ``n`` must be static. Row ``i``
    of ``x`` in ``a @ x = b`` is ``(b[i] - a[i, done] @ x[done]) / a[i, i]``
    over the rows already solved (those after ``i`` when ``upper``), so the
    graph holds ``n`` steps of a matrix product and a division. The sums run in
    another order than LAPACK's, so results agree to float32 rounding.
    """
    if not left:  # x @ a = b is a.mT @ x.mT = b.mT
        solved = solve_triangular(
            a.mT, b.mT, upper=not upper, left=True, unitriangular=unitriangular
        )
        return solved.mT
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])  # type: ignore[no-untyped-call]
    n, k = a.shape[-1], b.shape[-1]
    a = a.expand(*batch, n, n)
    b = b.expand(*batch, n, k)
    rows: dict[int, torch.Tensor] = {}
    for i in reversed(range(n)) if upper else range(n):
        row = b[..., i : i + 1, :]
        done = range(i + 1, n) if upper else range(i)
        if len(done):
            known = torch.cat([rows[j] for j in done], dim=-2)
            row = row - a[..., i : i + 1, done.start : done.stop] @ known
        rows[i] = row if unitriangular else row / a[..., i : i + 1, i : i + 1]
    return torch.cat([rows[i] for i in range(n)], dim=-2)


_inside = threading.local()


def _kept_whole_inside(decomposition: Callable[..., Any]) -> Callable[..., Any]:
    """``decomposition``, leaving whole (``NotImplemented``) the op it calls itself."""
    name = decomposition.__name__

    @functools.wraps(decomposition)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if getattr(_inside, name, False):
            return NotImplemented
        setattr(_inside, name, True)
        try:
            return decomposition(*args, **kwargs)
        finally:
            setattr(_inside, name, False)

    return guarded


def _int_beside_a_scalar(a: object, b: object) -> bool:
    return (
        isinstance(a, torch.Tensor)
        and a.dim() == 0
        and not (a.is_floating_point() or a.is_complex() or a.dtype == torch.bool)
        and isinstance(b, int)
        and not isinstance(b, bool)
    )


def _of_own_dtype(a: torch.Tensor, b: object) -> torch.Tensor | None:
    """``b`` as a 0-d tensor of ``a``'s dtype when ``a`` is a 0-d integer tensor and ``b`` an int; else None.

    PyTorch computes ``a + b`` of a 0-d int8 ``a`` and a Python int in int8,
    casting ``b`` to int8 (``100 // 300`` is ``100 // 44``). ExecuTorch 1.5.1's
    ``to_edge`` makes the int a 0-d int64 tensor, and a 0-d int64 tensor
    promotes a 0-d int8 one, so the result came out int64. The int is wrapped
    here as PyTorch's cast wraps it.
    """
    if not _int_beside_a_scalar(a, b):
        return None
    assert isinstance(b, int)
    bits = torch.iinfo(a.dtype).bits
    wrapped = b & ((1 << bits) - 1)
    if a.dtype.is_signed and wrapped >= 1 << (bits - 1):
        wrapped -= 1 << bits
    return torch.full_like(a, wrapped)


def scalar_in_own_dtype(op: Any) -> Callable[..., Any]:
    """A decomposition calling ``op(a, b, ...)`` with an int ``b`` of a 0-d integer ``a`` as a tensor of its dtype.

    See :func:`_of_own_dtype`; ``NotImplemented`` (kept whole) for other operands.
    """

    def decomposition(a: torch.Tensor, b: object, *args: Any, **kwargs: Any) -> Any:
        own = _of_own_dtype(a, b)
        return NotImplemented if own is None else op(a, own, *args, **kwargs)

    return decomposition


def integer_remainder(a: torch.Tensor, b: torch.Tensor | int) -> Any:
    """``a % b`` of integers as ``a - b * (a // b)``; ``NotImplemented`` (kept whole) for floats.

    The floor division runs where it is exact (OpenVINO within 2**24,
    ExecuTorch's kernel elsewhere); the product and difference wrap in int32
    as PyTorch's do, on either side.
    """
    if a.is_floating_point() or (isinstance(b, torch.Tensor) and b.is_floating_point()):
        return NotImplemented
    if isinstance(b, float):
        return NotImplemented
    quotient = integer_division(a, b, rounding_mode="floor")
    if quotient is NotImplemented:  # a divisor that cannot be -1
        quotient = torch.div(a, b, rounding_mode="floor")
    return a - b * quotient


@_kept_whole_inside
def integer_division(a: torch.Tensor, b: torch.Tensor | int, *, rounding_mode: str | None) -> Any:
    """``torch.div(a, b, rounding_mode=...)`` of integers with no division by -1; ``NotImplemented`` otherwise.

    ExecuTorch 1.5.1's ``div`` kernels divide integers with C's ``/``, which
    raises SIGFPE for the most negative integer over -1 and ends the process;
    PyTorch wraps (``-2**31 // -1`` is ``-2**31`` in int32). ``a / -1`` is
    ``-a`` whatever the rounding, and ``-a`` wraps on both sides, so a divisor
    of -1 divides by 1 and the quotient is negated. Float division, and a
    divisor that cannot be -1, are kept whole, but for an int divisor of a 0-d
    integer (:func:`_of_own_dtype`).
    """
    if rounding_mode is None or a.is_floating_point() or isinstance(b, float):
        return NotImplemented
    if not isinstance(b, torch.Tensor):
        if b == -1:
            return -a.to(torch.result_type(a, b))
        own = _of_own_dtype(a, b)
        return NotImplemented if own is None else torch.div(a, own, rounding_mode=rounding_mode)
    if b.is_floating_point() or not b.dtype.is_signed:
        return NotImplemented
    minus_one = b == -1
    quotient = torch.div(a, torch.where(minus_one, 1, b), rounding_mode=rounding_mode)
    return torch.where(minus_one, -quotient, quotient)


def integer_floor_division(a: torch.Tensor, b: torch.Tensor | int) -> Any:
    """``a // b`` (``floor_divide``) of integers as :func:`integer_division` computes it."""
    return integer_division(a, b, rounding_mode="floor")


def integer_power(a: torch.Tensor, b: torch.Tensor | int) -> Any:
    """``a ** b`` of integers by repeated squaring, wrapping as PyTorch does; ``NotImplemented`` for others.

    PyTorch multiplies in the result dtype, so a power past its range wraps
    (``3 ** 41`` in int64), and a negative exponent gives 1 for a base of 1,
    ``±1`` for -1 and 0 for any other. ExecuTorch 1.5.1's ``pow`` kernel
    computes in double and converts, so it saturates or rounds instead. A
    tensor exponent takes one step per bit its values can hold (7 for int8, 63
    for int64), built of ``mul`` and ``where``, which both sides compute exactly.
    An int exponent of 0 or more takes plain products; a negative one, which
    PyTorch refuses for integers, is kept whole. A bool exponent selects the
    base or 1.
    """
    if a.is_floating_point() or a.is_complex():
        return NotImplemented
    if a.dtype == torch.bool:  # PyTorch raises a bool base to its integer result dtype
        if isinstance(b, torch.Tensor) and (b.is_floating_point() or b.dtype == torch.bool):
            return NotImplemented
        a = a.to(torch.result_type(a, b))
    if not isinstance(b, torch.Tensor):
        if isinstance(b, bool) or not isinstance(b, int) or b < 0:
            return NotImplemented
        return _by_squaring(a, [bool(b >> bit & 1) for bit in range(b.bit_length())])
    if b.is_floating_point() or b.is_complex():
        return NotImplemented
    if b.dtype == torch.bool:  # a ** True is a, a ** False is 1
        return torch.where(b, a, torch.ones_like(a))
    dtype = torch.result_type(a, b)
    base, exponent = torch.broadcast_tensors(a.to(dtype), b.to(dtype))  # type: ignore[no-untyped-call]
    width = torch.iinfo(dtype).bits - int(dtype.is_signed)
    if dtype.is_signed:  # |b| of ``b``'s own dtype needs at most its bits (128 for int8)
        width = min(width, torch.iinfo(b.dtype).bits)
    # |b| has the bits of b where b >= 0, and the parity of a negative b.
    bits = _bits(exponent.abs(), width)
    power = _by_squaring(base, bits)
    if not dtype.is_signed:
        return power
    of_one = torch.where(base == -1, torch.where(bits[0], -1, 1), (base == 1).to(dtype))
    negative = (exponent < 0).to(dtype)  # a product, not a where (see _by_squaring)
    return power * (1 - negative) + of_one.to(dtype) * negative


def _by_squaring(base: torch.Tensor, bits: list[bool] | list[torch.Tensor]) -> torch.Tensor:
    """The product of ``base ** (2 ** i)`` over the bits ``i`` set, lowest first: known or tensors.

    A bit tensor takes its factor as ``1 + bit * (base - 1)``, which is ``base``
    or 1 in wrapping arithmetic too, not as a ``where``: with a dim known only
    at run time, OpenVINO 2026.4's CPU plugin computed an int32 chain of
    products and bool-fed ``Select`` in float32 (``3 ** 41`` rounded).
    """
    power = torch.ones_like(base)
    for position, bit in enumerate(bits):
        if isinstance(bit, torch.Tensor):
            power = power * (1 + bit.to(base.dtype) * (base - 1))
        elif bit:
            power = power * base
        if position + 1 < len(bits):
            base = base * base
    return power


def _bits(exponent: torch.Tensor, width: int) -> list[torch.Tensor]:
    """The low ``width`` bits of ``exponent`` as bool tensors, lowest first (all false where negative).

    Comparisons and subtractions, not ``bitwise_and``: OpenVINO 2026.4's CPU
    plugin computed ``where((b & 4) == 4, a * b, a)`` of int32 in float32.
    """
    left, bits = exponent, []
    for bit in reversed(range(width)):
        bits.append(left >= (1 << bit))
        left = torch.where(bits[-1], left - (1 << bit), left)
    return bits[::-1]


@_kept_whole_inside
def contiguous_nonzero_of_a_mask(x: torch.Tensor) -> Any:
    """``nonzero(x != 0)`` (``nonzero(x)`` of a bool ``x``), cloned into the contiguous layout.

    The clone, delegated with the ``nonzero``, hands ExecuTorch's CPU kernels
    the row-major layout they take (its reductions refuse dim order ``(1, 0)``).
    The ``nonzero`` inside is kept whole, not decomposed again.
    """
    found = torch.nonzero(x if x.dtype == torch.bool else x != 0)
    return aten.clone.default(found, memory_format=torch.contiguous_format)


def _nan_greatest(x: torch.Tensor) -> torch.Tensor:
    """A key that orders as PyTorch orders ``x``: NaN above +inf, +inf above every finite value.

    NaN becomes +inf and +inf the dtype's largest finite value, which a value
    of exactly that magnitude then ties with.
    """
    largest = torch.finfo(x.dtype).max
    return torch.where(x.isnan(), math.inf, torch.where(x == math.inf, largest, x))


@_kept_whole_inside
def sort_with_nan_greatest(x: torch.Tensor, dim: int = -1, descending: bool = False) -> Any:
    """``torch.sort`` of a float tensor with NaN sorted as PyTorch does; ``NotImplemented`` for others.

    PyTorch sorts NaN above every number; OpenVINO's ``TopK`` and ExecuTorch
    1.5.1's ``sort`` kernel put it elsewhere. Sorting :func:`_nan_greatest`
    and gathering ``x`` at its indices gives PyTorch's values and order.
    A 0-d tensor sorts to itself at index 0: OpenVINO's ``TopK`` refuses rank
    0, and ExecuTorch 1.5.1 has no ``sort`` kernel.
    """
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    if not x.is_floating_point():
        return NotImplemented
    indices = torch.sort(_nan_greatest(x), dim=dim, descending=descending).indices
    return x.gather(dim, indices), indices


@_kept_whole_inside
def topk_with_nan_greatest(
    x: torch.Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> Any:
    """``torch.topk`` of a float tensor with NaN the greatest, as in PyTorch; ``NotImplemented`` for others.

    ``topk(x, 1)`` of a 0-d tensor is ``x`` at index 0, as for ``sort``.
    """
    if x.dim() == 0 and k == 1:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    if not x.is_floating_point():
        return NotImplemented
    indices = torch.topk(_nan_greatest(x), k, dim=dim, largest=largest, sorted=sorted).indices
    return x.gather(dim, indices), indices


def _in_common_dtype(compare: Callable[..., Any]) -> Callable[..., Any]:
    """A comparison of two tensors computed in PyTorch's common dtype of its operands.

    PyTorch compares a ``uint8`` tensor with a 0-d int64 tensor in ``uint8``
    (a 0-d operand of the same category does not promote), so ``-562`` reads as
    206; ExecuTorch 1.5.1's kernels compare in the wider type. Casting both
    operands to ``torch.result_type`` first gives PyTorch's answer everywhere.
    """

    def in_common_dtype(a: torch.Tensor, b: torch.Tensor) -> Any:
        common = torch.result_type(a, b)
        if a.dtype == common and b.dtype == common:
            return NotImplemented
        return compare(a.to(common), b.to(common))

    return in_common_dtype


def _in_own_dtype(scatter: Callable[..., Any]) -> Callable[..., Any]:
    """A ``*_scatter(self, src, ...)`` whose ``src`` is first cast to ``self``'s dtype.

    PyTorch writes ``src`` into ``self`` in ``self``'s dtype; ExecuTorch 1.5.1's
    ``select_scatter`` returned ``src``'s dtype (float16 for a bool ``self``)
    and its ``slice_scatter`` wrote floats into integers wrong.
    """

    def in_own_dtype(self: torch.Tensor, src: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        if src.dtype == self.dtype:
            return NotImplemented
        return scatter(self, src.to(self.dtype), *args, **kwargs)

    return in_own_dtype


def cat_in_result_dtype(tensors: list[torch.Tensor], dim: int = 0) -> Any:
    """``torch.cat(tensors, dim)`` of each tensor cast to their promoted dtype first.

    PyTorch promotes over every tensor, an empty 1-d one included (it skips
    only its shape); ExecuTorch 1.5.1's ``to_edge`` prunes the empty ones, so
    the cast must come before. ``NotImplemented`` (kept whole) for one dtype.
    """
    common = functools.reduce(torch.promote_types, (t.dtype for t in tensors))
    if all(t.dtype == common for t in tensors):
        return NotImplemented
    return torch.cat([t.to(common) for t in tensors], dim)


def split_as_slices(x: torch.Tensor, split_sizes: list[int], dim: int = 0) -> Any:
    """``torch.split(x, split_sizes, dim)`` as one slice per piece, which keeps dynamic sizes.

    ``NotImplemented`` (PyTorch's own decomposition) when every size of ``x`` is static.
    """
    if not _has_a_dynamic_size(x):
        return NotImplemented
    starts = [0, *itertools.accumulate(split_sizes)]
    return [x.narrow(dim, start, size) for start, size in zip(starts, split_sizes, strict=False)]


def split_of_a_static_dim(x: torch.Tensor, split_size: int, dim: int = 0) -> Any:
    """``torch.split(x, split_size, dim)`` as slices; ``NotImplemented`` for a dynamic ``dim``."""
    length = x.shape[dim]
    if not isinstance(length, int):
        return NotImplemented
    pieces = [split_size] * (length // split_size) + [length % split_size] * bool(
        length % split_size
    )
    return split_as_slices(x, pieces or [0], dim)


def chunk_of_a_static_dim(x: torch.Tensor, chunks: int, dim: int = 0) -> Any:
    """``torch.chunk(x, chunks, dim)`` as slices; ``NotImplemented`` for a dynamic ``dim``.

    PyTorch splits into pieces of ``ceil(length / chunks)``, and an empty dim into
    ``chunks`` empty pieces.
    """
    length = x.shape[dim]
    if not isinstance(length, int):
        return NotImplemented
    if length == 0:
        return split_as_slices(x, [0] * chunks, dim)
    return split_of_a_static_dim(x, -(-length // chunks), dim)


def integer_rounding(x: torch.Tensor) -> Any:
    """``x`` itself (a copy) for an integer ``x``; ``NotImplemented`` (kept whole) for floats.

    ``ceil``, ``floor``, ``round`` and ``trunc`` return an integer tensor
    unchanged; OpenVINO's CPU plugin, and ExecuTorch 1.5.1's ``trunc`` kernel,
    round it through float32, which changes values past 2**24.
    """
    return NotImplemented if x.is_floating_point() else x.clone()


def copy_as_cast(self: torch.Tensor, src: torch.Tensor, non_blocking: bool = False) -> Any:
    """``aten.copy(self, src)``, the out-of-place ``self.copy_(src)``: ``src`` in ``self``'s dtype and shape.

    ExecuTorch 1.5.1's ``copy`` kernel fails to broadcast a 0-d source (error
    0x12) and writes a float source into bools wrong; a cast, a broadcast and a
    clone compute it exactly on either side.
    """
    return src.to(self.dtype).expand(self.shape).clone()


def squeeze_of_size_one_dims(x: torch.Tensor, dims: int | list[int]) -> Any:
    """``x.squeeze(dims)`` over the listed dims of static size 1 only; ``NotImplemented`` when all are.

    PyTorch leaves a listed dim of another size in place; ExecuTorch 1.5.1's
    ``squeeze_copy`` kernel fails on it (error 0x12). A dim whose size is known
    only at run time (``nonzero``'s count) is kept, as export's shapes keep it.
    """
    listed = [dims] if isinstance(dims, int) else list(dims)
    ones = [d for d in listed if x.dim() and _is_one(x.shape[d % x.dim()])]
    if len(ones) == len(listed) or x.dim() == 0:
        return NotImplemented
    return aten.squeeze.dims(x, ones) if ones else x.clone(memory_format=torch.contiguous_format)


def integer_sum(
    x: torch.Tensor,
    dim: int | list[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: torch.dtype | None = None,
) -> Any:
    """``x.sum(dim, keepdim, dtype=dtype)`` of an int32 or int64 result as running sums; ``NotImplemented`` otherwise.

    ExecuTorch 1.5.1's ``sum.IntList_out`` kernel accumulates int32 and int64
    in floating point: over a dim, 3**30, 3**30 and 7 sum to 411782271205376
    where PyTorch gives 411782264189305, and a sum past the range saturates
    where PyTorch's wraps. Its ``cumsum`` kernel adds in the dtype, as
    OpenVINO does, so each reduced dim becomes a running sum whose last
    element is the sum; a zero put before the first element makes an empty
    dim sum to 0. PyTorch sums integers and bools in int64 unless ``dtype``
    says otherwise.
    """
    result = dtype or (x.dtype if x.is_floating_point() or x.is_complex() else torch.int64)
    if result not in (torch.int32, torch.int64):
        return NotImplemented
    total = x.to(result)
    if x.dim() == 0:
        return total.clone()
    listed = [dim] if isinstance(dim, int) else list(dim or range(x.dim()))
    dims = sorted({d % x.dim() for d in listed})
    for d in reversed(dims):
        zero = total.new_zeros([1 if i == d else size for i, size in enumerate(total.shape)])
        total = torch.cat([zero, total], dim=d).cumsum(d, dtype=result).select(d, -1)
    for d in dims if keepdim else ():
        total = total.unsqueeze(d)
    return total


def cumsum_of_a_scalar(x: torch.Tensor, dim: int, dtype: torch.dtype | None = None) -> Any:
    """``cumsum`` of a 0-d tensor: the tensor itself in the result dtype; ``NotImplemented`` otherwise.

    ExecuTorch 1.5.1's ``cumsum`` kernel fails on a 0-d tensor (error 0x12).
    PyTorch sums integers and bools in int64 unless ``dtype`` says otherwise.
    """
    if x.dim() != 0:
        return NotImplemented
    integer = not (x.is_floating_point() or x.is_complex())
    return x.to(dtype or (torch.int64 if integer else x.dtype)).clone()


def integer_class_test(x: torch.Tensor) -> Any:
    """``isnan(x)`` or ``isinf(x)`` of an integer ``x``: all false; ``NotImplemented`` for floats.

    OpenVINO's ``IsNaN`` and ``IsInf`` take floats only, so the node stayed on
    the CPU and split the graph; ``x != x`` is false for every integer and
    computes on either side.
    """
    return NotImplemented if x.is_floating_point() or x.is_complex() else x != x


def integer_finite_test(x: torch.Tensor) -> Any:
    """``isfinite(x)`` of an integer ``x``: all true (:func:`integer_class_test`)."""
    return NotImplemented if x.is_floating_point() or x.is_complex() else x == x


@_kept_whole_inside
def gather_with_int64_indices(
    x: torch.Tensor, dim: int, index: torch.Tensor, *, sparse_grad: bool = False
) -> Any:
    """``gather`` at int64 indices of ``x``'s rank; ``NotImplemented`` when they are so already.

    PyTorch takes int32 indices, and a 0-d index of a 1-d ``x`` as one of
    shape ``(1,)``; ExecuTorch 1.5.1's ``gather`` kernel fails on the first
    (error 0x12).
    """
    if index.is_floating_point():
        return NotImplemented  # a float index is taken only when it is empty
    wide = index.to(torch.int64, memory_format=torch.contiguous_format)
    if index.dim() == 0 and x.dim() == 1:
        return aten.gather.default(x, dim, wide.reshape(1), sparse_grad=sparse_grad).reshape(())
    return aten.gather.default(x, dim, wide, sparse_grad=sparse_grad)


def _at_an_index_of_shape_one(scatter: Callable[..., Any]) -> Callable[..., Any]:
    """``scatter`` (``scatter``, ``scatter_add``, ``scatter_reduce``) of a 1-d or 0-d ``x`` at a 0-d index, at one of shape ``(1,)``.

    PyTorch reads a 0-d index of a 1-d or 0-d tensor as one of shape ``(1,)``,
    which takes the first element of ``src``; ExecuTorch 1.5.1's ``scatter``
    kernel crashed the process on it (SIGSEGV). A 0-d ``x`` is scattered as
    one of shape ``(1,)`` and reshaped back. Other indices are kept whole.
    """

    def at_an_index_of_shape_one(
        x: torch.Tensor, dim: int, index: torch.Tensor, src: Any, *args: Any, **kwargs: Any
    ) -> Any:
        if index.dim() != 0 or x.dim() > 1:
            return NotImplemented
        if isinstance(src, torch.Tensor):
            src = src.reshape(-1)[:1]
        scattered = scatter(x.reshape(-1), dim, index.reshape(1), src, *args, **kwargs)
        return scattered if x.dim() == 1 else scattered.reshape(())

    return at_an_index_of_shape_one


def extremum_of_nothing(
    x: torch.Tensor, dim: int | list[int] | tuple[int, ...] = (), keepdim: bool = False
) -> Any:
    """``amax`` or ``amin`` of an empty tensor: zeros of the (empty) result's shape; ``NotImplemented`` otherwise.

    ExecuTorch 1.5.1's ``amax`` and ``amin`` kernels abort the process on an
    empty input ("Input tensor must be nonempty"), where PyTorch returns an
    empty result (it refuses to reduce an empty dim, so the result is empty).
    """
    if not guard_or_false(x.numel() == 0):
        return NotImplemented
    listed = [dim] if isinstance(dim, int) else list(dim) or list(range(x.dim()))
    dims = {d % x.dim() for d in listed}
    shape = [1 if i in dims else size for i, size in enumerate(x.shape) if keepdim or i not in dims]
    return x.new_zeros(shape)


def softmax_of_a_scalar(x: torch.Tensor, dim: int, *args: Any, **kwargs: Any) -> Any:
    """``softmax`` of a 0-d tensor: 1, or NaN where ``x`` is NaN or infinite; ``NotImplemented`` otherwise.

    ExecuTorch 1.5.1's ``_softmax`` and ``_log_softmax`` kernels give 1 and 0
    for a 0-d NaN, and OpenVINO reduces over no dim there. ``x - x`` is 0 for
    a finite ``x`` and NaN for the others, as PyTorch's softmax is. One that
    asks for another dtype (``dtype``, ``half_to_float``) is kept whole.
    """
    if x.dim() != 0 or any(args) or any(kwargs.values()):
        return NotImplemented
    return x - x + 1


def log_softmax_of_a_scalar(x: torch.Tensor, dim: int, *args: Any, **kwargs: Any) -> Any:
    """``log_softmax`` of a 0-d tensor: 0, or NaN where ``x`` is NaN or infinite (:func:`softmax_of_a_scalar`)."""
    if x.dim() != 0 or any(args) or any(kwargs.values()):
        return NotImplemented
    return x - x


def _is_one(size: int | torch.SymInt) -> bool:
    """Whether a size is 1; one known only at run time counts as not 1, as export assumes."""
    return guard_or_false(size == 1)


_ROUNDINGS = (aten.ceil.default, aten.floor.default, aten.round.default, aten.trunc.default)

_SCATTERS = (aten.select_scatter.default, aten.slice_scatter.default)

_INDEXED_SCATTERS = (
    aten.scatter.src,
    aten.scatter.value,
    aten.scatter_add.default,
    aten.scatter_reduce.two,
)

_SPLITS = (aten.split_with_sizes.default, aten.split.Tensor, aten.chunk.default)

_DIVISIONS = (aten.div.Tensor_mode, aten.div.Scalar_mode, aten.floor_divide.default)

_RING_OPS = (aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor)
"""Ops whose int operand of a 0-d integer tensor ExecuTorch 1.5.1 promotes to int64."""

_CLASS_TESTS = (aten.isnan.default, aten.isinf.default, aten.isfinite.default)

_SOFTMAXES = (
    aten.softmax.int,
    aten._softmax.default,
    aten.log_softmax.int,
    aten._log_softmax.default,
)

_COMPARISONS = (
    *(getattr(aten, name).Tensor for name in ("eq", "ne", "lt", "le", "gt", "ge")),
    aten.maximum.default,
    aten.minimum.default,
    *(getattr(aten, name).default for name in ("logical_and", "logical_or", "logical_xor")),
)

DECOMPOSITIONS: dict[Any, Callable[..., Any]] = {
    aten.round.decimals: round_decimals,
    aten.cumprod.default: running_products,
    aten.exp2.default: exp2_as_power,
    aten.linalg_solve_triangular.default: solve_triangular,
    aten.remainder.Tensor: integer_remainder,
    aten.remainder.Scalar: integer_remainder,
    aten.pow.Tensor_Tensor: integer_power,
    aten.pow.Tensor_Scalar: integer_power,
    aten.nonzero.default: contiguous_nonzero_of_a_mask,
    aten.copy.default: copy_as_cast,
    aten.sort.default: sort_with_nan_greatest,
    aten.topk.default: topk_with_nan_greatest,
    aten.squeeze.dim: squeeze_of_size_one_dims,
    aten.squeeze.dims: squeeze_of_size_one_dims,
    aten.sum.dim_IntList: integer_sum,
    aten.softmax.int: softmax_of_a_scalar,
    aten._softmax.default: softmax_of_a_scalar,
    aten.log_softmax.int: log_softmax_of_a_scalar,
    aten._log_softmax.default: log_softmax_of_a_scalar,
    **{op: scalar_in_own_dtype(op) for op in _RING_OPS},
    aten.rsub.Scalar: scalar_in_own_dtype(aten.rsub.Tensor),
    aten.div.Tensor_mode: integer_division,
    aten.div.Scalar_mode: integer_division,
    aten.floor_divide.default: integer_floor_division,
    aten.cumsum.default: cumsum_of_a_scalar,
    aten.isnan.default: integer_class_test,
    aten.isinf.default: integer_class_test,
    aten.isfinite.default: integer_finite_test,
    aten.gather.default: gather_with_int64_indices,
    **{scatter: _at_an_index_of_shape_one(scatter) for scatter in _INDEXED_SCATTERS},
    aten.amax.default: extremum_of_nothing,
    aten.amin.default: extremum_of_nothing,
    **{compare: _in_common_dtype(compare) for compare in _COMPARISONS},
    **{scatter: _in_own_dtype(scatter) for scatter in _SCATTERS},
    aten.cat.default: cat_in_result_dtype,
    aten.split_with_sizes.default: split_as_slices,
    aten.split.Tensor: split_of_a_static_dim,
    aten.chunk.default: chunk_of_a_static_dim,
    **dict.fromkeys(_ROUNDINGS, integer_rounding),
}
"""Op overload to decomposition, for ``ExportedProgram.run_decompositions``."""


def _mixed_dtypes(node: torch.fx.Node) -> bool:
    dtypes = {
        arg.meta["val"].dtype
        for arg in node.all_input_nodes
        if isinstance(arg.meta.get("val"), torch.Tensor)
    }
    return len(dtypes) > 1


def _integer(value: object) -> bool:
    return isinstance(value, torch.Tensor) and not value.is_floating_point()


def _scalar(value: object) -> bool:
    return isinstance(value, torch.Tensor) and value.dim() == 0


def _sorts_floats_or_a_scalar(node: torch.fx.Node, value: object) -> bool:
    return isinstance(value, torch.Tensor) and (value.is_floating_point() or value.dim() == 0)


def _integer_power(node: torch.fx.Node, value: object) -> bool:
    return _integer(node.meta.get("val"))


def _integer_sum(node: torch.fx.Node, value: object) -> bool:
    total = node.meta.get("val")
    return isinstance(total, torch.Tensor) and total.dtype in (torch.int32, torch.int64)


def _squeezes_other_sizes(node: torch.fx.Node, value: object) -> bool:
    dims = node.args[1]
    listed = [dims] if isinstance(dims, int) else list(cast("list[int]", dims))
    return (
        isinstance(value, torch.Tensor)
        and value.dim() > 0
        and not all(_is_one(value.shape[d % value.dim()]) for d in listed)
    )


def _has_a_dynamic_size(value: object) -> bool:
    """Whether ``value`` is a tensor with a size known only at run time (a ``SymInt``)."""
    return isinstance(value, torch.Tensor) and not all(isinstance(d, int) for d in value.shape)


def _index(node: torch.fx.Node) -> object:
    return node.args[2].meta.get("val") if isinstance(node.args[2], torch.fx.Node) else None


def _at_a_scalar_index_of_a_vector(node: torch.fx.Node, value: object) -> bool:
    index = _index(node)
    return _scalar(index) and isinstance(value, torch.Tensor) and value.dim() <= 1


def _gathers_at_narrow_indices(node: torch.fx.Node, value: object) -> bool:
    index = _index(node)
    narrow = _integer(index) and getattr(index, "dtype", None) != torch.int64
    return narrow or _at_a_scalar_index_of_a_vector(node, value)


def _divides_integers_by_a_signed(node: torch.fx.Node, dividend: object) -> bool:
    """Whether a rounding division divides integers by a divisor that may be -1."""
    divisor = node.args[1]
    value = divisor.meta.get("val") if isinstance(divisor, torch.fx.Node) else divisor
    rounded = node.target is aten.floor_divide.default or node.kwargs.get("rounding_mode")
    signed = (
        value.dtype.is_signed and not value.is_floating_point()
        if isinstance(value, torch.Tensor)
        else value == -1
    )
    return bool(rounded) and _integer(dividend) and signed


def _int_of_a_scalar(node: torch.fx.Node, value: object) -> bool:
    """Whether ``node`` takes an int beside a 0-d integer tensor (:func:`_of_own_dtype`)."""
    return len(node.args) > 1 and _int_beside_a_scalar(value, node.args[1])


def _divides_by_a_signed_or_of_a_scalar(node: torch.fx.Node, dividend: object) -> bool:
    return _divides_integers_by_a_signed(node, dividend) or _int_of_a_scalar(node, dividend)


_WHEN: dict[Any, Callable[[torch.fx.Node, object], bool]] = {
    **dict.fromkeys(_ROUNDINGS, lambda node, value: _integer(value)),
    **dict.fromkeys((aten.sort.default, aten.topk.default), _sorts_floats_or_a_scalar),
    **dict.fromkeys((aten.pow.Tensor_Tensor, aten.pow.Tensor_Scalar), _integer_power),
    **dict.fromkeys(_SOFTMAXES, lambda node, value: _scalar(value)),
    **dict.fromkeys(_DIVISIONS, _divides_by_a_signed_or_of_a_scalar),
    **dict.fromkeys((*_RING_OPS, aten.rsub.Scalar), _int_of_a_scalar),
    aten.cumsum.default: lambda node, value: _scalar(value),
    **dict.fromkeys(_CLASS_TESTS, lambda node, value: _integer(value)),
    aten.gather.default: _gathers_at_narrow_indices,
    **dict.fromkeys(_INDEXED_SCATTERS, _at_a_scalar_index_of_a_vector),
    **dict.fromkeys(
        (aten.amax.default, aten.amin.default),
        lambda node, value: isinstance(value, torch.Tensor) and guard_or_false(value.numel() == 0),
    ),
    aten.sum.dim_IntList: _integer_sum,
    **dict.fromkeys((aten.squeeze.dim, aten.squeeze.dims), _squeezes_other_sizes),
    **dict.fromkeys(_SPLITS, lambda node, value: _has_a_dynamic_size(value)),
}
"""When a decomposed op needs its decomposition, given the node and its first argument's value.

Comparisons, scatters and ``cat`` need theirs for mixed dtypes only
(:data:`_OF_MIXED_DTYPES`); the rest always.
"""


_OF_MIXED_DTYPES = (*_COMPARISONS, *_SCATTERS, aten.cat.default)


def _needs(node: torch.fx.Node) -> bool:
    if node.op != "call_function" or node.target not in DECOMPOSITIONS:
        return False
    value = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
    when = _WHEN.get(node.target)
    if when is not None:
        return when(node, value)
    return node.target not in _OF_MIXED_DTYPES or _mixed_dtypes(node)


def needs_decompositions(program: torch.export.ExportedProgram) -> bool:
    """Whether ``program`` holds a node :data:`DECOMPOSITIONS` rewrites (a comparison only of mixed dtypes)."""
    return any(
        _needs(node)
        for module in program.graph_module.modules()
        if isinstance(module, torch.fx.GraphModule)
        for node in module.graph.nodes
    )


def decompose_for_lowering(program: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """``program`` (ATen dialect) with :data:`DECOMPOSITIONS` applied; itself when it holds none.

    Running the table retraces the whole program, so it runs only when needed.
    """
    return program.run_decompositions(DECOMPOSITIONS) if needs_decompositions(program) else program
