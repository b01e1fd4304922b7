"""ExecuTorch partitioner for the OpenVINO backend."""

from ov_partition.cpu_kernels import MissingKernelWarning, ScrambledNonzeroWarning
from ov_partition.exceptions import CompileSpecError
from ov_partition.op_support import (
    SUPPORTED_DTYPES,
    OpenvinoOperatorSupport,
    converts,
    frontend_converts,
)
from ov_partition.partitioner import OpenvinoPartitioner, compile_specs

__all__ = [
    "SUPPORTED_DTYPES",
    "CompileSpecError",
    "MissingKernelWarning",
    "OpenvinoOperatorSupport",
    "OpenvinoPartitioner",
    "ScrambledNonzeroWarning",
    "compile_specs",
    "converts",
    "frontend_converts",
]
