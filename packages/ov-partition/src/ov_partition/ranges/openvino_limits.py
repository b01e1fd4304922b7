"""What OpenVINO's CPU plugin computes narrower than PyTorch, and how a verdict says so."""

from __future__ import annotations

import torch

from ov_partition.ranges.intervals import Interval

EXACT_IN_FLOAT32: Interval = (-(2**24), 2**24)
"""Integers OpenVINO's float32 division, remainder and ``pow`` get exactly."""

FLOAT32_COMPUTED = frozenset(
    {"aten.div", "aten.floor_divide", "aten.remainder", "aten.fmod", "aten.pow"}
)
"""Integer ops OpenVINO's CPU plugin computes in float32 (exact within ``EXACT_IN_FLOAT32``)."""

INT64_NOT_PROVED = (
    "not proved to fit in 32 bits, and OpenVINO's CPU plugin computes int64 in 32 bits "
    "(compile spec allow_int64_narrowing=true delegates it)"
)
"""The end of every int64 reason (the compile spec that delegates such nodes anyway)."""


def integer_result(written: list[torch.Tensor]) -> bool:
    """Whether any of the tensors a node writes holds integers (or bools)."""
    return any(not (t.is_floating_point() or t.is_complex()) for t in written)
