"""Decompositions applied before lowering, into core ATen ops computing the same.

``to_edge`` refuses a program holding an op outside core ATen that has no
decomposition of its own (``aten.round.decimals``,
``aten.linalg_solve_triangular``, which ``MultivariateNormal.log_prob``
calls), before any partitioner sees it. And ExecuTorch 1.5.1's CPU kernel of
integer ``remainder`` takes the dividend's sign (C's ``%``: ``-7 % 2`` gives
-1, PyTorch 1), so an integer remainder the partitioner leaves on the CPU
would be wrong. :data:`DECOMPOSITIONS` is a table for
``ExportedProgram.run_decompositions``, applied before lowering
(``ov_runtime.lower`` does), which turns each such op into core ATen ops that
OpenVINO and ExecuTorch's kernels both compute exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

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
    return a - b * torch.div(a, b, rounding_mode="floor")


DECOMPOSITIONS: dict[Any, Callable[..., Any]] = {
    aten.round.decimals: round_decimals,
    aten.linalg_solve_triangular.default: solve_triangular,
    aten.remainder.Tensor: integer_remainder,
    aten.remainder.Scalar: integer_remainder,
}
"""Op overload to decomposition, for ``ExportedProgram.run_decompositions``."""


def needs_decompositions(program: torch.export.ExportedProgram) -> bool:
    """Whether ``program`` holds an op of :data:`DECOMPOSITIONS`."""
    return any(
        node.op == "call_function" and node.target in DECOMPOSITIONS
        for module in program.graph_module.modules()
        if isinstance(module, torch.fx.GraphModule)
        for node in module.graph.nodes
    )
