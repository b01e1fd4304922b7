"""torch.fx graph passes that prepare a partition for OpenVINO's PyTorch frontend."""

from ov_passes.integer_accumulation import cast_integer_accumulations_to_int64
from ov_passes.integer_floor_division import integer_floor_division_by_truncation
from ov_passes.nan_comparisons import greater_as_less
from ov_passes.pipeline import GraphPass, op_name, run_passes
from ov_passes.symbolic_slice_bounds import slice_bounds_as_tensors
from ov_passes.view_sizes import view_sizes_from_metadata

DEFAULT_PASSES: tuple[GraphPass, ...] = (
    cast_integer_accumulations_to_int64,
    integer_floor_division_by_truncation,
    greater_as_less,
    slice_bounds_as_tensors,
    view_sizes_from_metadata,
)
"""The passes preprocess runs on every partition, in this order.

Each rewrites nodes the others neither create nor read (the floor-division
rewrite compares integers, which ``greater_as_less`` leaves alone), so the
order is not load-bearing; it is fixed so that every lowering is the same."""

__all__ = [
    "DEFAULT_PASSES",
    "GraphPass",
    "cast_integer_accumulations_to_int64",
    "greater_as_less",
    "integer_floor_division_by_truncation",
    "op_name",
    "run_passes",
    "slice_bounds_as_tensors",
    "view_sizes_from_metadata",
]
