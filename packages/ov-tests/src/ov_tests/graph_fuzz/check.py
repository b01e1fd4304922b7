"""Lower a drawn graph through ExecuTorch's own API, run it twice and compare with eager.

A graph is exported (with dim 0 dynamic when it asks), lowered with
``to_edge_transform_and_lower`` and ``OpenvinoPartitioner``, serialized, loaded
with ``executorch.runtime`` and run on two sets of values. Each output must
match eager by the criteria of :mod:`ov_tests.graph_fuzz.compare`; a graph
that differs only as it amplifies each op's rounding is told apart by
:mod:`ov_tests.graph_fuzz.stepwise`. A mismatch is run through ExecuTorch's
kernels alone and OpenVINO's own ``openvino.convert_model`` too, so the report
says whose it is.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ov_tests.graph_fuzz.compare import differences, explained, flat, float64_references
from ov_tests.graph_fuzz.draw import Graph, hurting_values
from ov_tests.graph_fuzz.lowering import executorch_alone, export_graph
from ov_tests.graph_fuzz.stepwise import rounding_amplified


@dataclass
class Outcome:
    """What one graph gave.

    Attributes:
        status: ``match``, ``half in float32`` (a mismatch that equals the
            graph with its float16 and bfloat16 inputs computed in float32, as
            OpenVINO's CPU plugin runs a half-precision chain), ``subnormals
            flushed`` (a mismatch that equals eager with subnormal numbers
            flushed to 0, as OpenVINO's CPU plugin flushes them), ``rounding
            amplified`` (a mismatch where each op equals eager on the
            delegate's own inputs, :mod:`ov_tests.graph_fuzz.stepwise`),
            ``mismatch``, ``lowering error`` (this backend's
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


_OPENVINO_ALONE = {"INFERENCE_PRECISION_HINT": "f32"}
"""OpenVINO's own compile properties: float32 inference, this backend's default (the CPU plugin's
own default is bf16 on a CPU with AVX512-BF16)."""


def _openvino_own(
    program: torch.export.ExportedProgram,
    calls: list[list[torch.Tensor]],
    expected: list[list[torch.Tensor]],
) -> list[list[torch.Tensor]] | None:
    """Outputs of OpenVINO's own conversion of the exported program, per call; None if it fails."""
    import openvino as ov

    try:
        compiled = ov.compile_model(ov.convert_model(program), "CPU", _OPENVINO_ALONE)
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
        program = export_graph(graph, first)
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
            expected = [flat(module(*values)) for values in calls]
    except Exception as error:  # a shrunk graph PyTorch itself refuses
        return Outcome("skipped", f"eager refuses it: {error}")
    fixed = _ranks_fixed_otherwise(program, expected)
    if fixed:
        return Outcome("skipped", fixed, delegated=delegated)
    return _compared(graph, program, method, calls, expected, delegated)


def _ranks_fixed_otherwise(
    program: torch.export.ExportedProgram, expected: list[list[torch.Tensor]]
) -> str:
    """Where eager's result has a rank other than the one export fixed, or ``""``.

    Export takes a size computed from the data as not 1 where an op's rank
    depends on it, without a runtime assert: ``squeeze(nonzero(x), 0)`` of one
    nonzero element is 0-d in eager and 1-d in the program (graph 1,254 of
    seed 0). A program, delegated or not, cannot return eager's result then.
    """
    output = next(node for node in program.graph.nodes if node.op == "output")
    specs = [getattr(value, "meta", {}).get("val") for value in output.args[0]]
    for number, outputs in enumerate(expected):
        for index, (spec, tensor) in enumerate(zip(specs, outputs, strict=False)):
            if isinstance(spec, torch.Tensor) and spec.dim() != tensor.dim():
                return (
                    f"export fixed output {index} at {spec.dim()} dims; eager's has "
                    f"{tensor.dim()} in call {number}"
                )
    return ""


def _compared(
    graph: Graph,
    program: torch.export.ExportedProgram,
    method: Any,
    calls: list[list[torch.Tensor]],
    expected: list[list[torch.Tensor]],
    delegated: bool,
) -> Outcome:
    """Run ``method`` on each call's values and compare with eager's ``expected``."""
    explanations: dict[str, str] = {}
    for number, values in enumerate(calls):
        try:
            got = list(method.execute(list(values)))
        except Exception as error:
            refused = _exported_refuses(program, values)
            if refused:
                return Outcome("skipped", f"the exported program refuses call {number}: {refused}")
            owner = "executorch" if executorch_alone(program, values) is None else "backend"
            return Outcome("mismatch", f"call {number} failed: {error}", owner, delegated)
        status, detail = explained(graph, values, got, expected[number])
        if status == "mismatch" and rounding_amplified(graph, values, got):
            status = "rounding amplified"
        if status == "mismatch":
            references = float64_references(graph, values, expected[number])
            owner = _owner(program, calls, expected, number, references)
            return Outcome("mismatch", f"call {number}: {detail}", owner, delegated)
        if status != "match":
            explanations.setdefault(status, f"call {number}: {detail}; {_WHY[status]}")
    for status in _WHY:  # the explanation that reaches furthest first
        if status in explanations:
            owner = "" if status == "rounding amplified" else "openvino"  # documented limits
            return Outcome(status, explanations[status], owner, delegated)
    return Outcome("match", delegated=delegated)


_WHY = {
    "rounding amplified": "each op equals eager on the delegate's own inputs",
    "subnormals flushed": "equal to eager with subnormals flushed to 0",
    "half in float32": "equal to the graph computed in float32",
}
"""What each non-failing status other than ``match`` found, most far-reaching first."""


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
    alone = executorch_alone(program, calls[number])
    if alone is not None and differences(alone, expected[number], references):
        return "executorch"
    own = _openvino_own(program, calls, expected)
    if own is None:
        return "unattributed (OpenVINO alone cannot convert or run it)"
    return "openvino" if differences(own[number], expected[number], references) else "backend"
