"""Lower a drawn graph through ExecuTorch's own API, run it twice and compare with eager.

A graph is exported (with dim 0 dynamic when it asks), lowered with
``to_edge_transform_and_lower`` and ``OpenvinoPartitioner``, serialized, loaded
with ``executorch.runtime`` and run on two sets of values. Each output must
match eager at a tolerance of its dtype: integers and bools exactly, floats
within a relative and absolute tolerance of eager widened by how far eager
itself moves when the inputs are computed in float64 (an ill-conditioned graph
may differ by that much in any correct implementation), or within that
tolerance of the float64 result, and with results below float32's smallest
normal number read as 0 (OpenVINO's CPU plugin flushes them, a documented
limit). A mismatch is run through OpenVINO's own
``openvino.convert_model`` too, so the report says whose it is.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ov_tests.graph_fuzz.draw import Graph, hurting_values

TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (1.6e-2, 1.6e-2),
}
"""(rtol, atol) per float dtype; other dtypes must be equal."""

FLUSHED_BELOW = torch.finfo(torch.float32).tiny
"""Magnitudes OpenVINO's CPU plugin flushes to 0 (float32's smallest normal number)."""


@dataclass
class Outcome:
    """What one graph gave.

    Attributes:
        status: ``match``, ``half in float32`` (a mismatch that equals the
            graph with its float16 and bfloat16 inputs computed in float32, as
            OpenVINO's CPU plugin runs a half-precision chain), ``subnormals
            flushed`` (a mismatch that equals eager with subnormal numbers
            flushed to 0, as OpenVINO's CPU plugin flushes them), ``mismatch``, ``lowering error`` (this backend's
            lowering failed where ExecuTorch's own succeeds), ``load error``
            (the program lowered without a warning and did not load), or
            ``skipped`` (export or ExecuTorch without a delegate failed, or the
            lowering warned that the program cannot load, or nothing was delegated).
        detail: What differed or failed.
        owner: For a mismatch, ``executorch`` when ExecuTorch's kernels alone
            (no delegate) are wrong too (not merely unable to lower or run
            the graph), ``openvino`` when OpenVINO's
            own conversion of the graph is wrong too, ``backend`` when it is
            right, and ``unattributed`` when OpenVINO alone cannot run it.
        delegated: Whether the program holds a delegate of this backend.
    """

    status: str
    detail: str = ""
    owner: str = ""
    delegated: bool = False


def _export(graph: Graph, values: list[torch.Tensor]) -> torch.export.ExportedProgram:
    module = graph.module()
    if graph.dynamic and values and all(v.dim() and v.shape[0] >= 2 for v in values):
        batch = torch.export.Dim("batch", min=2, max=16)
        sizes = {v.shape[0] for v in values}
        if len(sizes) == 1:
            try:
                return torch.export.export(
                    module, tuple(values), dynamic_shapes=[{0: batch} for _ in values]
                )
            except Exception:  # the graph specializes dim 0: export it static
                graph.dynamic = False
    graph.dynamic = False
    return torch.export.export(module, tuple(values))


def second_values(graph: Graph, first: list[torch.Tensor], seed: int) -> list[torch.Tensor]:
    """Other values for a second call that eager accepts; the first ones when none is found.

    A dynamic graph's second call takes another size of dim 0.
    """
    rng = random.Random(seed)
    module = graph.module()
    for _ in range(5):
        batch = rng.randint(2, 16) if graph.dynamic else None
        values = []
        for value in first:
            shape = (batch, *value.shape[1:]) if batch is not None else tuple(value.shape)
            values.append(hurting_values(rng, value.dtype, shape, finite=graph.finite))
        try:
            with torch.no_grad():
                module(*values)
        except Exception:  # values the graph refuses (an index out of range)
            continue
        return values
    return [v.clone() for v in first]


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
) -> str:
    """What differs between two output lists, or ``""`` when they match.

    Integers and bools must be equal. A float matches when it is within its
    dtype's tolerance of eager, widened by twice the distance from eager to its
    float64 reference (``references``, None where there is none), or within
    that tolerance of the reference itself: eager's own rounding (a float16
    chain, an overflow to NaN) is no more right than the exact result.
    """
    if len(got) != len(expected):
        return f"{len(got)} outputs, eager has {len(expected)}"
    for index, (g, e, r) in enumerate(zip(got, expected, references, strict=True)):
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


def _flat(result: object) -> list[torch.Tensor]:
    return list(result) if isinstance(result, (tuple, list)) else [result]  # type: ignore[list-item]


def _float64_references(
    graph: Graph, values: list[torch.Tensor], expected: list[torch.Tensor]
) -> list[torch.Tensor | None]:
    """Each float output computed in float64, cast to its dtype.

    The float inputs are taken as float64, and so are the floats computed from
    integers (float64 is the default dtype meanwhile: ``log2`` of an int32).
    """
    if not any(t.is_floating_point() for t in (*values, *expected)):
        return [None] * len(expected)
    wide = [v.double() if v.is_floating_point() else v for v in values]
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        with torch.no_grad():
            computed = _flat(graph.module()(*wide))
    except Exception:  # the graph needs its own dtypes
        return [None] * len(expected)
    finally:
        torch.set_default_dtype(default)
    references: list[torch.Tensor | None] = []
    for e, r in zip(expected, computed, strict=False):
        usable = e.is_floating_point() and r.shape == e.shape and r.is_floating_point()
        references.append(r.to(e.dtype) if usable else None)
    return references + [None] * (len(expected) - len(references))


_HALVES = (torch.float16, torch.bfloat16)


def _float32_inside(
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
            computed = _flat((module or graph.module())(*wide))
        return [r.to(e.dtype) for r, e in zip(computed, expected, strict=True)]
    except Exception:  # the graph needs its own dtypes
        return None


def _to_openvino(value: torch.Tensor) -> Any:
    import openvino as ov

    if value.dtype != torch.bfloat16:
        return ov.Tensor(np.ascontiguousarray(value.numpy()))
    tensor = ov.Tensor(ov.Type.bf16, list(value.shape))
    tensor.data.view(np.int16)[...] = value.contiguous().view(torch.int16).numpy()
    return tensor


def _from_openvino(array: Any, like: torch.Tensor) -> torch.Tensor:
    array = np.asarray(array)
    if like.dtype == torch.bfloat16 and array.dtype in (np.uint16, np.int16):
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(array.copy()).to(like.dtype)


def _openvino_own(
    program: torch.export.ExportedProgram,
    calls: list[list[torch.Tensor]],
    expected: list[list[torch.Tensor]],
) -> list[list[torch.Tensor]] | None:
    """Outputs of OpenVINO's own conversion of the exported program, per call; None if it fails."""
    import openvino as ov

    try:
        compiled = ov.compile_model(ov.convert_model(program), "CPU")
        results = []
        for values, wanted in zip(calls, expected, strict=True):
            outputs = compiled([_to_openvino(v) for v in values])
            results.append([_from_openvino(outputs[i], like) for i, like in enumerate(wanted)])
    except Exception:  # OpenVINO cannot convert or run it alone
        return None
    return results


def check_graph(graph: Graph, first: list[torch.Tensor], seed: int) -> Outcome:
    """Lower, load and run ``graph`` on ``first`` and on other values; compare each call with eager."""
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    from ov_partition import MissingKernelWarning
    from ov_runtime import BACKEND_ID, OpenvinoPartitioner

    try:
        program = _export(graph, first)
    except Exception as error:
        return Outcome("skipped", f"export failed: {error}")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lowered = to_edge_transform_and_lower(program, partitioner=[OpenvinoPartitioner()])
            executorch_program = lowered.to_executorch()
    except Exception as error:
        try:
            to_edge_transform_and_lower(program).to_executorch()
        except Exception:  # ExecuTorch fails alone too: not this backend's
            return Outcome("skipped", f"ExecuTorch cannot lower it alone: {error}")
        return Outcome("lowering error", f"{type(error).__name__}: {error}")
    plan = executorch_program.executorch_program.execution_plan[0]
    delegated = BACKEND_ID in [d.id for d in plan.delegates]
    warned = [w for w in caught if issubclass(w.category, MissingKernelWarning)]
    try:
        method = Runtime.get().load_program(executorch_program.buffer).load_method("forward")
    except Exception as error:
        if warned:
            return Outcome("skipped", f"lowering warned it cannot load: {warned[0].message}")
        return Outcome("load error", f"{error}", delegated=delegated)
    calls = [first, second_values(graph, first, seed)]
    module = graph.module()
    try:
        with torch.no_grad():
            expected = [_flat(module(*values)) for values in calls]
    except Exception as error:  # a shrunk graph PyTorch itself refuses
        return Outcome("skipped", f"eager refuses it: {error}")
    return _compared(graph, program, method, calls, expected, delegated)


def _compared(
    graph: Graph,
    program: torch.export.ExportedProgram,
    method: Any,
    calls: list[list[torch.Tensor]],
    expected: list[list[torch.Tensor]],
    delegated: bool,
) -> Outcome:
    """Run ``method`` on each call's values and compare with eager's ``expected``."""
    half = flushed = ""
    for number, values in enumerate(calls):
        try:
            got = list(method.execute(list(values)))
        except Exception as error:
            refused = _exported_refuses(program, values)
            if refused:
                return Outcome("skipped", f"the exported program refuses call {number}: {refused}")
            owner = "executorch" if _executorch_alone(program, values) is None else "backend"
            return Outcome("mismatch", f"call {number} failed: {error}", owner, delegated)
        references = _float64_references(graph, values, expected[number])
        detail = differences(got, expected[number], references)
        inside = _float32_inside(graph, values, expected[number]) if detail else None
        if inside is not None and not differences(got, inside, references):
            half = f"call {number}: {detail}; equal to the graph computed in float32"
        elif detail and _equals_flushing_eager(graph, values, got):
            flushed = f"call {number}: {detail}; equal to eager with subnormals flushed to 0"
        elif detail:
            return Outcome(
                "mismatch",
                f"call {number}: {detail}",
                _owner(program, calls, expected, number, references),
                delegated,
            )
    if half:
        return Outcome("half in float32", half, "openvino", delegated)
    if flushed:
        return Outcome("subnormals flushed", flushed, "openvino", delegated)
    return Outcome("match", delegated=delegated)


class _Flushing:
    """``torch.ops.aten`` whose ops give each float result's subnormal numbers as 0 (of their sign)."""

    def __init__(self, target: Any = torch.ops.aten) -> None:
        self._target = target

    def __getattr__(self, name: str) -> _Flushing:
        return _Flushing(getattr(self._target, name))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _flush_results(self._target(*args, **kwargs))


def _flush_results(result: Any) -> Any:
    if isinstance(result, (tuple, list)):
        return type(result)(_flush_results(item) for item in result)
    if isinstance(result, torch.Tensor) and result.is_floating_point():
        return torch.where(result.abs() < FLUSHED_BELOW, result * 0, result)
    return result


def _equals_flushing_eager(
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
    alone is told apart from one that is wrong.
    """
    read_as_0 = _flush_results(values)
    module = graph.module(_Flushing())
    for inputs in (values, read_as_0):
        try:
            with torch.no_grad():
                expected = _flat(module(*inputs))
        except Exception:  # eager refuses the flushed values
            continue
        references = _float64_references(graph, inputs, expected)
        inside = _float32_inside(graph, inputs, expected, module)
        for candidate in (expected, inside):
            if candidate is not None and not differences(got, candidate, references):
                return True
    return False


def _exported_refuses(program: torch.export.ExportedProgram, values: list[torch.Tensor]) -> str:
    """Why the exported program itself refuses ``values``, or ``""`` when it runs them.

    Export may assert what it assumed of a size that eager computes at run
    time: ``minimum(nonzero(x), y)`` with a ``y`` of 5 rows asserts 5 nonzero
    elements, where eager broadcasts 1 too (graph 3,011 of seed 0). The
    program then fails on such values wherever it runs.
    """
    try:
        with torch.no_grad():
            program.module()(*values)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return ""


def _executorch_alone(
    program: torch.export.ExportedProgram, values: list[torch.Tensor]
) -> list[torch.Tensor] | None:
    """The outputs of ``program`` on ExecuTorch's kernels alone (no delegate); None if it fails."""
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    try:
        alone = to_edge_transform_and_lower(program).to_executorch()
        method = Runtime.get().load_program(alone.buffer).load_method("forward")
        return list(method.execute(list(values)))
    except Exception:  # ExecuTorch's kernels alone cannot run it
        return None


def _owner(
    program: torch.export.ExportedProgram,
    calls: list[list[torch.Tensor]],
    expected: list[list[torch.Tensor]],
    number: int,
    references: list[torch.Tensor | None],
) -> str:
    """Who computes call ``number`` wrong.

    ``executorch`` when its kernels alone (no delegate) do, else ``openvino``
    when OpenVINO's own conversion does, else ``backend``. A graph that
    ExecuTorch cannot lower or run alone says nothing of its kernels.
    """
    alone = _executorch_alone(program, calls[number])
    if alone is not None and differences(alone, expected[number], references):
        return "executorch"
    own = _openvino_own(program, calls, expected)
    if own is None:
        return "unattributed (OpenVINO alone cannot convert or run it)"
    return "openvino" if differences(own[number], expected[number], references) else "backend"
