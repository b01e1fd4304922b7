"""torch.fx graph passes that prepare a partition for OpenVINO's PyTorch frontend."""

from ov_passes.integer_accumulation import cast_integer_accumulations_to_int64
from ov_passes.pipeline import GraphPass, op_name, run_passes

DEFAULT_PASSES: tuple[GraphPass, ...] = (cast_integer_accumulations_to_int64,)
"""The passes preprocess runs on every partition, in this order."""

__all__ = [
    "DEFAULT_PASSES",
    "GraphPass",
    "cast_integer_accumulations_to_int64",
    "op_name",
    "run_passes",
]
