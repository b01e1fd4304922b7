"""The models converted on trial, kept for preprocess so that each partition is converted once.

The partitioner converts each partition on trial (``ov_partition.trial_lowering``)
to learn which nodes OpenVINO refuses; ExecuTorch then cuts the same partition
out of the real program and hands it to preprocess. Converting it a second time
took half of preprocess on MiniLM. So :meth:`OvExecutorchBackend.convert`
keeps its model here, and preprocess takes it back for a partition that is the
same: the same graphs, signature, input values, ranges and tensor names, and
tensors that hold the bytes the trial converted. The partitioner
converts with the program's real weights when it has seen them (its
``ops_to_not_decompose``); a trial that converted zeros in their place matches
only all-zero weights, and preprocess converts anew. A model converted from
values other than the partition's is therefore never used, whatever the
conversion computed from them (OpenVINO folds constants).

Kept models hold the trial's tensors (the program's weights, shared, not
copied) until preprocess takes them or :func:`forget_trial_models` drops them;
preprocess drops what is left when it ends. A lowering that fails between the
partitioner and preprocess leaves its models until the next preprocess ends.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass

import openvino as ov
import torch
from torch.export import ExportedProgram


@dataclass(frozen=True)
class _Kept:
    tensors: dict[str, torch.Tensor]
    model: ov.Model


_lock = threading.Lock()
_kept: dict[str, list[_Kept]] = {}


def _fingerprint(program: ExportedProgram) -> str:
    """A digest of what the conversion reads from ``program`` besides its tensors' values.

    The code of every graph counts, control flow's branches and bodies included.
    """
    placeholders = [
        (node.name, str(node.meta.get("val")))
        for node in program.graph.nodes
        if node.op == "placeholder"
    ]
    codes = [
        f"{name}:\n{module.code}"
        for name, module in program.graph_module.named_modules()
        if isinstance(module, torch.fx.GraphModule)
    ]
    text = "\n".join(
        [
            *codes,
            str(program.graph_signature),
            str(placeholders),
            str(program.range_constraints),
            str(_tensor_layouts(_tensors(program))),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _tensors(program: ExportedProgram) -> dict[str, torch.Tensor]:
    tensors = {**program.state_dict, **program.constants}
    return {name: value for name, value in tensors.items() if isinstance(value, torch.Tensor)}


def _tensor_layouts(tensors: dict[str, torch.Tensor]) -> list[tuple[str, str, tuple[int, ...]]]:
    return sorted((name, str(t.dtype), tuple(t.shape)) for name, t in tensors.items())


def _equal(kept: dict[str, torch.Tensor], given: dict[str, torch.Tensor]) -> bool:
    """Whether preprocess's tensors are the trial's, or hold the same bytes."""
    if kept.keys() != given.keys():
        return False
    try:
        return all(_same_bits(kept[name], given[name]) for name in kept)
    except (RuntimeError, TypeError, NotImplementedError):  # a tensor type without bytes
        return False


def _same_bits(kept: torch.Tensor, given: torch.Tensor) -> bool:
    """Whether two tensors are one, or hold the same bytes: -0.0 is not 0.0, and a NaN is itself."""
    if kept is given:
        return True
    if kept.dtype != given.dtype or kept.shape != given.shape:
        return False

    def as_bytes(tensor: torch.Tensor) -> torch.Tensor:
        return tensor.contiguous().reshape(-1).view(torch.uint8)

    return torch.equal(as_bytes(kept), as_bytes(given))


def keep_trial_model(program: ExportedProgram, model: ov.Model) -> None:
    """Keep ``model``, converted on trial from partition ``program``, for preprocess to reuse."""
    entry = _Kept(_tensors(program), model)
    with _lock:
        _kept.setdefault(_fingerprint(program), []).append(entry)


def take_trial_model(program: ExportedProgram) -> ov.Model | None:
    """Return the model kept for a partition the same as ``program``, byte for byte, or None.

    The model is handed out once; other kept models of the same partition stay.
    """
    key = _fingerprint(program)
    tensors = _tensors(program)
    with _lock:
        entries = _kept.get(key, [])
        for index, entry in enumerate(entries):
            if _equal(entry.tensors, tensors):
                return entries.pop(index).model
    return None


def forget_trial_models() -> None:
    """Drop every kept model, and with them the tensors they hold."""
    with _lock:
        _kept.clear()
