"""The values of the tensors an exported program never mutates."""

from __future__ import annotations

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from ov_partition.ranges.intervals import Interval


def constant_values(program: ExportedProgram) -> dict[str, Interval]:
    """The interval of each integer parameter, constant and never-mutated buffer, by placeholder name."""
    mutated = set(program.graph_signature.buffers_to_mutate.values())
    values: dict[str, Interval] = {}
    for spec in program.graph_signature.input_specs:
        if spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            continue
        if spec.target is None or spec.target in mutated:
            continue
        tensor = program.state_dict.get(spec.target, program.constants.get(spec.target))
        if not isinstance(tensor, torch.Tensor) or tensor.is_floating_point():
            continue
        if tensor.dtype not in (torch.int32, torch.int64) or tensor.numel() == 0:
            continue  # narrower integers are bounded by their dtype
        if isinstance(tensor, FakeTensor) and (tensor := real_tensor(tensor)) is None:
            continue
        values[spec.arg.name] = (int(tensor.min()), int(tensor.max()))
    return values


def real_tensor(fake: FakeTensor) -> torch.Tensor | None:
    """The real tensor ``fake`` was made from, if its fake mode still holds it.

    ExecuTorch hands partitioners a copy of the program whose parameters and
    buffers are fake tensors (``exir.program._fake_program``), made by the
    program's fake mode, whose converter remembers each real tensor it saw.
    """
    # No public API maps a fake tensor back to its real one: ``FakeTensor.constant``
    # and ``FakeTensor.real_tensor`` stay None for ``fake_mode.from_tensor``, which
    # ExecuTorch uses. The fake mode's converter memoizes real tensor -> id ->
    # fake, so search that memo; on a PyTorch without it, the values are unknown.
    converter = fake.fake_mode.fake_tensor_converter
    try:
        seen = converter.meta_converter.describer.lookup_tensor.items()  # type: ignore[no-untyped-call]
        fakes = converter.tensor_memo
    except AttributeError:
        return None
    for real, number in seen:
        if fakes.get(number) is fake and not isinstance(real, FakeTensor):
            return real  # type: ignore[no-any-return]
    return None
