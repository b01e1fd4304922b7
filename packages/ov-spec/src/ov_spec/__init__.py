"""Compile specs, the dtype table and the backend id of the OpenVINO backend for ExecuTorch.

Uses the standard library only, so other projects can import it without
OpenVINO or PyTorch.
"""

from ov_spec.backend_id import BACKEND_ID
from ov_spec.compile_spec import (
    ALLOW_INT64_NARROWING,
    CACHE_DIR,
    COMPILED_BLOB,
    CPU_DEFAULT_PRECISION,
    DEFAULT_DEVICE,
    DEVICE,
    DYNAMIC_QUANTIZATION_GROUP_SIZE,
    ENABLE_CPU_PINNING,
    INFERENCE_NUM_THREADS,
    INFERENCE_PRECISION,
    KEY_HELP,
    KNOWN_KEYS,
    KV_CACHE_PRECISION,
    KV_CACHE_PRECISIONS,
    NUM_STREAMS,
    PERFORMANCE_HINT,
    PERFORMANCE_HINTS,
    PRECISIONS,
    CompileSpecLike,
    OpenvinoOptions,
    runtime_options,
)
from ov_spec.dtypes import DELEGATE_DTYPES, DTYPES, Dtype
from ov_spec.exceptions import CompileSpecError
from ov_spec.op_names import op_name, target_name
from ov_spec.spec_values import NO_CACHE, runs_on_cpu_only

__all__ = [  # noqa: RUF022 - grouped by topic
    "BACKEND_ID",
    # compile spec keys and values
    "ALLOW_INT64_NARROWING",
    "CACHE_DIR",
    "NO_CACHE",
    "COMPILED_BLOB",
    "CPU_DEFAULT_PRECISION",
    "DEFAULT_DEVICE",
    "DEVICE",
    "DYNAMIC_QUANTIZATION_GROUP_SIZE",
    "ENABLE_CPU_PINNING",
    "KV_CACHE_PRECISION",
    "KV_CACHE_PRECISIONS",
    "NUM_STREAMS",
    "PERFORMANCE_HINT",
    "PERFORMANCE_HINTS",
    "INFERENCE_NUM_THREADS",
    "INFERENCE_PRECISION",
    "KEY_HELP",
    "KNOWN_KEYS",
    "PRECISIONS",
    # parsing and resolving
    "CompileSpecError",
    "CompileSpecLike",
    "OpenvinoOptions",
    "runtime_options",
    "runs_on_cpu_only",
    # dtypes
    "DELEGATE_DTYPES",
    "DTYPES",
    "Dtype",
    # op names
    "op_name",
    "target_name",
]
