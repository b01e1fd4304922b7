"""When a delegate's outputs count as eager's: tolerances, float64 references and OpenVINO's documented limits.

Integers and bools must be equal. Floats must be within a relative and
absolute tolerance of their dtype, widened by how far eager itself moves when
the inputs are computed in float64 (an ill-conditioned graph may differ by that
much in any correct implementation), or within that tolerance of the float64
result, with results below float32's smallest normal number read as 0. A
mismatch may still be explained by two documented limits of OpenVINO's CPU
plugin: it computes a float16 or bfloat16 chain in float32
(:func:`float32_inside`), and it flushes subnormal numbers to 0
(:func:`equals_flushing_eager`); :func:`explained` names which.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import torch

from ov_tests.graph_fuzz.draw import Graph

TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (1.6e-2, 1.6e-2),
}
"""(rtol, atol) per float dtype; other dtypes must be equal."""

FLUSHED_BELOW = torch.finfo(torch.float32).tiny
"""Magnitudes OpenVINO's CPU plugin flushes to 0 (float32's smallest normal number)."""


def _flushed(value: torch.Tensor) -> torch.Tensor:
    wide = value.double()
    return wide.masked_fill(wide.abs() < FLUSHED_BELOW, 0.0)


def _close(got: torch.Tensor, wanted: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Where ``got`` is ``wanted`` or within ``allowed`` of it; an infinite ``wanted`` only itself."""
    same = (got == wanted) | (got.isnan() & wanted.isnan())
    return same | (((got - wanted).abs() <= allowed) & wanted.isfinite())


def differences(
    got: Sequence[torch.Tensor],
    expected: Sequence[torch.Tensor],
    references: Sequence[torch.Tensor | None],
    slack: Sequence[torch.Tensor | None] | None = None,
) -> str:
    """What differs between two output lists, or ``""`` when they match.

    Integers and bools must be equal. A float matches when it is within its
    dtype's tolerance of eager, widened by twice the distance from eager to its
    float64 reference (``references``, None where there is none), or within
    that tolerance of the reference itself: eager's own rounding (a float16
    chain, an overflow to NaN) is no more right than the exact result.
    ``slack`` (None, or one per output) widens a float output's tolerance by
    that absolute amount per element: the rounding an accumulation may gather
    in any order of its terms.
    """
    if len(got) != len(expected):
        return f"{len(got)} outputs, eager has {len(expected)}"
    slack = slack or [None] * len(expected)
    for index, (g, e, r, s) in enumerate(zip(got, expected, references, slack, strict=True)):
        if g.dtype != e.dtype or g.shape != e.shape:
            return f"output {index}: {g.dtype} {tuple(g.shape)}, eager {e.dtype} {tuple(e.shape)}"
        if e.dtype not in TOLERANCES:
            if not torch.equal(g, e):
                wrong = int((g != e).sum())
                return f"output {index}: {wrong} of {e.numel()} values differ"
            continue
        gd, ed = _flushed(g), _flushed(e)
        rtol, atol = TOLERANCES[e.dtype]
        allowed = atol + rtol * ed.abs()
        if s is not None:
            allowed = allowed + s.double()
        close = _close(gd, ed, allowed)
        if r is not None:
            rd = _flushed(r)
            drift = (rd - ed).abs().nan_to_num(0.0, 0.0, 0.0)
            close |= _close(gd, ed, allowed + 2 * drift) | _close(gd, rd, atol + rtol * rd.abs())
        off = ~close
        if bool(off.any()):
            first = int(off.flatten().nonzero()[0])
            return (
                f"output {index}: {int(off.sum())} of {e.numel()} values off, first at flat "
                f"index {first}: {g.flatten()[first].item()!r}, eager {e.flatten()[first].item()!r}"
            )
    return ""


def flat(result: object) -> list[torch.Tensor]:
    """A module's result as a list of tensors."""
    return list(result) if isinstance(result, (tuple, list)) else [result]  # type: ignore[list-item]


def computed_in_float64(graph: Graph, values: list[torch.Tensor]) -> list[torch.Tensor] | None:
    """``graph``'s outputs on ``values`` with float64 as the default dtype; None if it refuses."""
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        with torch.no_grad():
            return flat(graph.module()(*values))
    except Exception:  # the graph needs its own dtypes
        return None
    finally:
        torch.set_default_dtype(default)


def float64_references(
    graph: Graph, values: list[torch.Tensor], expected: list[torch.Tensor]
) -> list[torch.Tensor | None]:
    """Each float output computed in float64, cast to its dtype.

    The float inputs are taken as float64, and so are the floats computed from
    integers (float64 is the default dtype meanwhile: ``log2`` of an int32).
    """
    if not any(t.is_floating_point() for t in (*values, *expected)):
        return [None] * len(expected)
    computed = computed_in_float64(
        graph, [v.double() if v.is_floating_point() else v for v in values]
    )
    if computed is None:
        return [None] * len(expected)
    references: list[torch.Tensor | None] = []
    for e, r in zip(expected, computed, strict=False):
        usable = e.is_floating_point() and r.shape == e.shape and r.is_floating_point()
        references.append(r.to(e.dtype) if usable else None)
    return references + [None] * (len(expected) - len(references))


_HALVES = (torch.float16, torch.bfloat16)


def float32_inside(
    graph: Graph,
    values: list[torch.Tensor],
    expected: list[torch.Tensor],
    module: torch.nn.Module | None = None,
) -> list[torch.Tensor] | None:
    """The outputs with float16 and bfloat16 inputs computed in float32, cast back to eager's dtypes.

    OpenVINO's CPU plugin runs a float16 or bfloat16 chain in float32 and rounds
    only its results (a documented limit, docs/exactness.md); None when no
    input is of a half dtype or the graph refuses float32. ``module`` computes
    the graph (``graph.module()`` by default).
    """
    if not any(v.dtype in _HALVES for v in values):
        return None
    wide = [v.float() if v.dtype in _HALVES else v for v in values]
    try:
        with torch.no_grad():
            computed = flat((module or graph.module())(*wide))
        return [r.to(e.dtype) for r, e in zip(computed, expected, strict=True)]
    except Exception:  # the graph needs its own dtypes
        return None


class Flushing:
    """``torch.ops.aten`` whose ops give each float result's subnormal numbers as 0 (of their sign).

    ``lines`` (None: every call flushes) names the lines of a graph of ``count``
    lines whose calls flush: a graph's module makes one call per line, in order,
    so call ``k`` is line ``k % count``.
    """

    def __init__(
        self,
        target: Any = torch.ops.aten,
        lines: frozenset[int] | None = None,
        count: int = 1,
        calls: list[int] | None = None,
    ) -> None:
        self._target, self._lines, self._count = target, lines, count
        self._calls = calls if calls is not None else [0]

    def __getattr__(self, name: str) -> Flushing:
        return Flushing(getattr(self._target, name), self._lines, self._count, self._calls)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The op's result, its float tensors' subnormal numbers flushed if its line flushes."""
        line = self._calls[0] % self._count
        self._calls[0] += 1
        result = self._target(*args, **kwargs)
        return flush_results(result) if self._lines is None or line in self._lines else result


def flush_results(result: Any) -> Any:
    """``result`` with each float tensor's subnormal numbers as 0 of their sign, through tuples."""
    if isinstance(result, (tuple, list)):
        return type(result)(flush_results(item) for item in result)
    if isinstance(result, torch.Tensor) and result.is_floating_point():
        return torch.where(result.abs() < FLUSHED_BELOW, result * 0, result)
    return result


def equals_flushing_eager(
    graph: Graph, values: list[torch.Tensor], got: list[torch.Tensor]
) -> bool:
    """Whether ``got`` equals eager computing ``values`` with subnormal numbers flushed to 0.

    OpenVINO's CPU plugin flushes the subnormal results of its kernels to 0
    and reads subnormal inputs as 0 in some of them (a documented limit,
    docs/exactness.md; on an AMD EPYC with AVX512-BF16 whatever
    ``CPU_DENORMALS_OPTIMIZATION`` says), while its comparisons see the
    subnormals a kernel is given. Eager computes the same way with each op's
    float results flushed, with or without its inputs' subnormals read as 0,
    directly or with its float16 and bfloat16 inputs in float32 (as the plugin
    runs a half-precision chain). A graph that differs from eager by that
    alone is told apart from one that is wrong. The plugin flushes in some
    kernels and not in others (``tanh`` of a bfloat16 subnormal, not ``elu``:
    graph 2,913 of seed 1), so eager also flushes at each subset of the ops
    whose results hold a subnormal (:data:`MOST_FLUSHING_OPS` of them at most).
    """
    read_as_0 = flush_results(values)
    count = len(graph.lines)
    subsets = [None, *_subsets(_lines_with_subnormals(graph, values))]
    for lines, inputs in itertools.product(subsets, (values, read_as_0)):
        module = graph.module(Flushing(lines=lines, count=count))
        try:
            with torch.no_grad():
                expected = flat(module(*inputs))
        except Exception:  # eager refuses the flushed values
            continue
        references = float64_references(graph, inputs, expected)
        inside = float32_inside(graph, inputs, expected, module)
        for candidate in (expected, inside):
            if candidate is not None and not differences(got, candidate, references):
                return True
    return False


MOST_FLUSHING_OPS = 6
"""The most ops whose subsets :func:`equals_flushing_eager` flushes at (64 subsets)."""


class _Recording:
    """``torch.ops.aten`` that records each call's result."""

    def __init__(self, target: Any = torch.ops.aten, results: list[Any] | None = None) -> None:
        self._target = target
        self.results = results if results is not None else []

    def __getattr__(self, name: str) -> _Recording:
        return _Recording(getattr(self._target, name), self.results)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self._target(*args, **kwargs)
        self.results.append(result)
        return result


def _lines_with_subnormals(graph: Graph, values: list[torch.Tensor]) -> list[int]:
    """The lines of ``graph`` whose eager results on ``values`` hold a subnormal float."""
    recording = _Recording()
    try:
        with torch.no_grad():
            graph.module(recording)(*values)
    except Exception:  # eager refuses them
        return []
    lines = []
    for line, result in enumerate(recording.results):
        floats = [t for t in flat(result) if isinstance(t, torch.Tensor) and t.is_floating_point()]
        if any(bool(((t != 0) & (t.abs() < FLUSHED_BELOW)).any()) for t in floats):
            lines.append(line)
    return lines


def _subsets(lines: list[int]) -> list[frozenset[int]]:
    """The non-empty proper subsets of ``lines``; none past :data:`MOST_FLUSHING_OPS` lines."""
    if len(lines) > MOST_FLUSHING_OPS:
        return []
    return [
        frozenset(chosen)
        for size in range(1, len(lines))
        for chosen in itertools.combinations(lines, size)
    ]


def _each_equals_either(
    got: list[torch.Tensor],
    expected: list[torch.Tensor],
    inside: list[torch.Tensor],
    references: list[torch.Tensor | None],
    slack: Sequence[torch.Tensor | None] | None,
) -> bool:
    """Whether each output of ``got`` equals eager's or the one computed in float32 inside.

    One output may come from a delegate, which runs its half-precision chain in
    float32, and another from ExecuTorch's kernels after a partition boundary,
    which round each op as eager does (graph 2,469 of seed 1: a ``tan`` of the
    delegate's float32 ``asin(1)`` beside a float ``remainder`` kept on the CPU).
    """
    if len(got) != len(expected):
        return False
    per_output = slack or [None] * len(expected)
    return all(
        not differences([g], [e], [r], [s]) or not differences([g], [i], [r], [s])
        for g, e, i, r, s in zip(got, expected, inside, references, per_output, strict=True)
    )


def explained(
    graph: Graph,
    values: list[torch.Tensor],
    got: list[torch.Tensor],
    expected: list[torch.Tensor],
    slack: Sequence[torch.Tensor | None] | None = None,
) -> tuple[str, str]:
    """How ``got`` (the delegate's outputs of ``graph`` on ``values``) stands against eager's ``expected``.

    Returns:
        The status and what differed: ``("match", "")``; ``("half in float32",
        detail)`` or ``("subnormals flushed", detail)`` when it equals eager
        computed the way OpenVINO's CPU plugin documents that it computes;
        ``("mismatch", detail)`` otherwise. ``slack`` widens each float
        output's tolerance by that many units (see :func:`differences`).
    """
    references = float64_references(graph, values, expected)
    detail = differences(got, expected, references, slack)
    if not detail:
        return "match", ""
    inside = float32_inside(graph, values, expected)
    if inside is not None and _each_equals_either(got, expected, inside, references, slack):
        return "half in float32", detail
    if equals_flushing_eager(graph, values, got):
        return "subnormals flushed", detail
    return "mismatch", detail
