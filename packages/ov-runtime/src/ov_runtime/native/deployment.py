"""Where the installed package keeps what a C++ application needs.

The native build installs, beside the backend library: ``ov-executorch-run``
(runs a ``.pte`` through ExecuTorch's C++ ``Module`` API without Python), the
public header ``include/ov_executorch/backend.h``, and the CMake package
``cmake/ov_executorch_backend-config.cmake`` for ``find_package``.
"""

from __future__ import annotations

from pathlib import Path

from ov_runtime.native.library import installed

RUNNER_NAME = "ov-executorch-run"


def cpp_runner() -> Path:
    """The path of ``ov-executorch-run``, the C++ runner.

    Raises:
        BackendUnavailableError: The native part was not built.
    """
    return installed(RUNNER_NAME)


def cmake_package_dir() -> Path:
    """The folder of ``ov_executorch_backend-config.cmake``, for ``ov_executorch_backend_DIR``.

    Raises:
        BackendUnavailableError: The native part was not built.
    """
    return installed("cmake")
