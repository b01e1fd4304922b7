"""torch.fx graph passes that prepare a partition for OpenVINO's PyTorch frontend."""

from ov_passes.integer_accumulation import cast_integer_accumulations_to_int64
from ov_passes.pipeline import GraphPass, op_name, run_passes
from ov_passes.symbolic_slice_bounds import slice_bounds_as_tensors
from ov_passes.view_sizes import view_sizes_from_metadata

DEFAULT_PASSES: tuple[GraphPass, ...] = (
    cast_integer_accumulations_to_int64,
    slice_bounds_as_tensors,
    view_sizes_from_metadata,
)
"""The passes preprocess runs on every partition, in this order."""

__all__ = [
    "DEFAULT_PASSES",
    "GraphPass",
    "cast_integer_accumulations_to_int64",
    "op_name",
    "run_passes",
    "slice_bounds_as_tensors",
    "view_sizes_from_metadata",
]
