"""The native backend (C++, built from ``packages/ov-runtime/native``) and its thin loader.

Nothing here imports PyTorch or ExecuTorch's Python package: loading the
library registers the backend with ExecuTorch's runtime through ctypes alone.
"""

from ov_runtime.native.deployment import RUNNER_NAME, cmake_package_dir, cpp_runner
from ov_runtime.native.library import (
    LIBRARY_NAME,
    OPENVINO_LIBRARY_VARIABLE,
    compile_properties,
    compiled_delegates,
    int8_products_exact,
    is_available,
    load_backend,
    native_checksum,
    native_element_type,
    payload_refusal,
    register_at_import,
    take_last_error,
)

__all__ = [
    "LIBRARY_NAME",
    "OPENVINO_LIBRARY_VARIABLE",
    "RUNNER_NAME",
    "cmake_package_dir",
    "compile_properties",
    "compiled_delegates",
    "cpp_runner",
    "int8_products_exact",
    "is_available",
    "load_backend",
    "native_checksum",
    "native_element_type",
    "payload_refusal",
    "register_at_import",
    "take_last_error",
]
