"""Load the native backend into the ExecuTorch runtime of this process.

The library links the executorch wheel's ``libexecutorch.so``, which holds the
backend registry the ``executorch.runtime`` pybindings use, so loading it with
``RTLD_GLOBAL`` registers the backend under ``ov_spec.BACKEND_ID`` there,
before or after ``executorch.runtime`` is imported. It opens OpenVINO's C
library itself on first use; the environment variable
``OV_EXECUTORCH_OPENVINO_C_LIB`` names another one.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.resources
import logging
from typing import Any

from ov_runtime.exceptions import BackendUnavailableError
from ov_spec import BACKEND_ID

logger = logging.getLogger(__name__)

LIBRARY_NAME = "libov_executorch_backend.so"
OPENVINO_LIBRARY_VARIABLE = "OV_EXECUTORCH_OPENVINO_C_LIB"


@functools.cache
def load_backend() -> ctypes.CDLL:
    """Load the native backend once per process and return it.

    Raises:
        BackendUnavailableError: The library is missing (the ``ov-runtime``
            package was installed without its native build) or cannot be loaded.
    """
    # A Traversable; in an editable install it spans the source and the installed folder.
    resource = importlib.resources.files("ov_runtime") / LIBRARY_NAME
    if not resource.is_file():
        raise BackendUnavailableError(
            f"{LIBRARY_NAME} is not installed in the ov_runtime package; reinstall "
            "ov-runtime so that its native part is built (`uv sync --reinstall-package ov-runtime`)"
        )
    path = str(resource)
    try:
        library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as error:
        raise BackendUnavailableError(f"cannot load {path}: {error}") from error
    logger.debug("loaded the %s backend from %s", BACKEND_ID, path)
    return library


def is_available() -> bool:
    """Return whether this backend is registered and OpenVINO's runtime loads.

    False, with the reason logged as a warning, when the native library cannot
    be loaded, did not register, or cannot open OpenVINO's C library or create
    its core.
    """
    try:
        library = load_backend()
    except BackendUnavailableError as error:
        logger.warning("the %s backend is not available: %s", BACKEND_ID, error)
        return False
    from executorch.runtime import Runtime

    registry = Runtime.get().backend_registry
    if BACKEND_ID not in registry.registered_backend_names:
        logger.warning("the %s backend did not register with ExecuTorch's runtime", BACKEND_ID)
        return False
    reason_of = library.ov_executorch_unavailable_reason
    reason_of.restype = ctypes.c_char_p
    reason = (reason_of() or b"").decode("utf-8", errors="replace")
    if reason:
        logger.warning("the %s backend is not available: %s", BACKEND_ID, reason)
        return False
    return True


def compiled_delegates() -> list[dict[str, str]]:
    """Return what each delegate compiled in this process was compiled with, oldest first.

    Each entry maps ``device`` to the device string and, where OpenVINO reports
    it, ``INFERENCE_PRECISION_HINT`` to the precision the compiled model
    applies (read back with ``ov_compiled_model_get_property``), so a caller
    can check that the precision it asked for was applied.
    """
    function = load_backend().ov_executorch_compiled_delegate
    function.restype = ctypes.c_long
    function.argtypes = [ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    records: list[dict[str, str]] = []
    while (text := _read_text(function, len(records))) is not None:
        records.append(dict(item.split("=", 1) for item in text.split(" ") if "=" in item))
    return records


def take_last_error() -> str:
    """Return and clear the reason of the backend's last error in this process ("" if none).

    The native backend logs every error to stderr through ExecuTorch's log and
    keeps the last one, so that an ``ExecutionError`` can say why a delegate
    failed where ExecuTorch only reports an error code.
    """
    function = load_backend().ov_executorch_take_last_error
    function.restype = ctypes.c_long
    function.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return _read_text(function) or ""


def _read_text(function: Any, *args: int) -> str | None:
    """Call a native ``(…, buffer, size) -> length`` function; None when it returns -1."""
    length = int(function(*args, None, 0))
    if length < 0:
        return None
    buffer = ctypes.create_string_buffer(length + 1)
    function(*args, buffer, length + 1)
    return buffer.value.decode("utf-8", errors="replace")
