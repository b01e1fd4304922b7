"""What OpenVINO's CPU plugin computes narrower than PyTorch, and how a verdict says so."""

from __future__ import annotations

import torch

from ov_partition.ranges.intervals import Interval

EXACT_IN_FLOAT32: Interval = (-(2**24), 2**24)
"""Integers OpenVINO's float32 division, remainder, ``pow``, max pooling and padding get exactly."""

FLOAT32_COMPUTED: dict[str, tuple[int, ...] | None] = {
    "aten.div": (0, 1),
    "aten.floor_divide": (0, 1),
    "aten.remainder": (0, 1),
    "aten.fmod": (0, 1),
    "aten.pow": None,
    "aten.max_pool2d_with_indices": (0,),
    "aten.max_pool3d_with_indices": (0,),
    "aten.constant_pad_nd": (2,),
}
"""Integer ops OpenVINO's CPU plugin computes in float32, with the arguments that must be exact.

Each maps to the positions of the arguments whose values must lie within
``EXACT_IN_FLOAT32`` for the result to be exact, or to None when the result
itself must (a power may leave its operands' range). OpenVINO 2026.4's CPU
plugin runs an int32 ``MaxPool`` in float32 (its runtime model shows a f32
``Pooling``), and the frontend's ``Pad`` takes an integer fill value through
float32 (``2**31 - 100`` pads as ``2**31 - 128``).
"""

INT64_NOT_PROVED = (
    "not proved to fit in 32 bits, and OpenVINO's CPU plugin computes int64 in 32 bits "
    "(compile spec allow_int64_narrowing=true delegates it)"
)
"""The end of every int64 reason (the compile spec that delegates such nodes anyway)."""


def integer_result(written: list[torch.Tensor]) -> bool:
    """Whether any of the tensors a node writes holds integers (or bools)."""
    return any(not (t.is_floating_point() or t.is_complex()) for t in written)
