"""The end-to-end check every model and op test goes through.

Export, lower with this backend, serialize, run the ``.pte`` with ExecuTorch's
runtime, and compare with PyTorch eager; check that the program really calls
this backend's delegate and that only the expected ops stayed on the CPU.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils._pytree import tree_leaves

from ov_runtime import BACKEND_ID, LoweredProgram, load_program, lower, run


@dataclass(frozen=True)
class Outcome:
    """What one trip through the pipeline produced.

    Attributes:
        lowered: The lowered program.
        outputs: Outputs of the ``.pte`` (flattened), one list per call.
        expected: Eager outputs (flattened), one list per call.
    """

    lowered: LoweredProgram
    outputs: list[list[Any]]
    expected: list[list[Any]]


def delegate_ids(lowered: LoweredProgram) -> list[str]:
    """Return the backend id of every delegate in the serialized program's first plan."""
    plan = lowered.program.executorch_program.execution_plan[0]
    return [delegate.id for delegate in plan.delegates]


def cpu_operators(lowered: LoweredProgram) -> set[str]:
    """Return the names of the kernels the program calls outside delegates (``aten::nonzero``)."""
    plan = lowered.program.executorch_program.execution_plan[0]
    return {op.name for op in plan.operators}


def check_program(
    model: torch.nn.Module,
    inputs: Sequence[Any],
    *,
    atol: float,
    rtol: float = 0.0,
    cpu_ops: Collection[str] = (),
    more_inputs: Sequence[Sequence[Any]] = (),
    **lower_options: Any,
) -> Outcome:
    """Lower ``model``, run the ``.pte`` on ``inputs`` (and on each of ``more_inputs``), compare with eager.

    Args:
        model: The module; it is put in eval mode.
        inputs: Example inputs for the export, and the first call's inputs.
        atol: Largest absolute difference allowed per element (plus ``rtol`` times
            the eager value); integer and bool outputs must be equal.
        rtol: Relative tolerance.
        cpu_ops: Kernel names (``aten::atan2``) allowed to stay on ExecuTorch's CPU.
        more_inputs: Inputs of further calls of the same loaded program.
        lower_options: Passed to :func:`ov_runtime.lower` (``compile_specs``, ``dynamic_shapes``).

    Raises:
        AssertionError: No delegate of this backend, an unexpected CPU kernel,
            or an output that differs from eager.
    """
    model.eval()  # a converted PT2E model's eval() returns None
    lowered = lower(model, inputs, **lower_options)
    ids = delegate_ids(lowered)
    assert ids and set(ids) == {BACKEND_ID}, f"delegates in the program: {ids}"
    unexpected = cpu_operators(lowered) - set(cpu_ops)
    assert not unexpected, (
        f"ops left on the CPU: {sorted(unexpected)}; reasons: {lowered.rejections}"
    )

    outcome = Outcome(lowered, [], [])
    program = load_program(lowered.buffer)
    for call_inputs in [inputs, *more_inputs]:
        with torch.no_grad():
            expected = tree_leaves(model(*call_inputs))
        outputs = run(program, tree_leaves(call_inputs))  # a method takes them flattened
        assert_same(outputs, expected, atol=atol, rtol=rtol)
        outcome.outputs.append(outputs)
        outcome.expected.append(expected)
    return outcome


def assert_same(
    outputs: Sequence[Any], expected: Sequence[Any], *, atol: float, rtol: float = 0.0
) -> None:
    """Assert that outputs match eager's in count, dtype, shape and value."""
    assert len(outputs) == len(expected), f"{len(outputs)} outputs, eager has {len(expected)}"
    for index, (got, want) in enumerate(zip(outputs, expected, strict=True)):
        if not isinstance(want, torch.Tensor):
            assert got == want, f"output {index}: {got!r} != eager {want!r}"
            continue
        assert isinstance(got, torch.Tensor), f"output {index} is {type(got).__name__}"
        assert got.dtype == want.dtype, f"output {index}: dtype {got.dtype}, eager {want.dtype}"
        assert got.shape == want.shape, (
            f"output {index}: shape {tuple(got.shape)}, eager {tuple(want.shape)}"
        )
        if want.is_floating_point():
            # Equal infinities and NaN against NaN match; their difference would be NaN.
            same = (got == want) | (got.isnan() & want.isnan())
            difference = (got.double() - want.double()).abs().masked_fill(same, 0.0)
            allowed = atol + rtol * want.double().abs()
            worst = difference.max().item() if difference.numel() else 0.0
            assert bool(((difference <= allowed) | same).all()), (
                f"output {index}: max abs difference {worst:.3g} exceeds atol={atol:g}, rtol={rtol:g}"
            )
        else:
            assert torch.equal(got, want), f"output {index} differs from eager"
