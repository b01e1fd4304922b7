"""Load the native backend into the ExecuTorch runtime of this process.

The library links the executorch wheel's ``libexecutorch.so``, which holds the
backend registry the ``executorch.runtime`` pybindings use, so loading it with
``RTLD_GLOBAL`` registers the backend under ``ov_spec.BACKEND_ID`` there,
before or after ``executorch.runtime`` is imported. It opens OpenVINO's C
library itself on first use; the environment variable
``OV_EXECUTORCH_OPENVINO_C_LIB`` names another one. The C functions called
here are declared in ``native/c_api.h``.

Importing this module loads neither PyTorch nor ExecuTorch's Python package.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.resources
import logging
from pathlib import Path
from typing import Any

from ov_runtime.exceptions import BackendUnavailableError
from ov_spec import BACKEND_ID

logger = logging.getLogger(__name__)

LIBRARY_NAME = "libov_executorch_backend.so"
OPENVINO_LIBRARY_VARIABLE = "OV_EXECUTORCH_OPENVINO_C_LIB"


def installed(name: str) -> Path:
    """The path of ``name``, which the native build installs in this package's folder.

    Raises:
        BackendUnavailableError: The native part was not built.
    """
    # A Traversable; in an editable install it spans the source and the installed folder.
    resource = importlib.resources.files(__package__ or "ov_runtime.native") / name
    if not (resource.is_file() or resource.is_dir()):
        raise BackendUnavailableError(
            f"{name} is not installed in the ov_runtime package; reinstall ov-runtime so that "
            "its native part is built (`uv sync --reinstall-package ov-runtime`)"
        )
    return Path(str(resource))


@functools.cache
def _library() -> ctypes.CDLL:
    path = str(installed(LIBRARY_NAME))
    try:
        library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as error:
        raise BackendUnavailableError(f"cannot load {path}: {error}") from error
    for name in ("ov_executorch_unavailable_reason", "ov_executorch_registration_error"):
        getattr(library, name).restype = ctypes.c_char_p
    library.ov_executorch_element_type.restype = ctypes.c_char_p
    library.ov_executorch_element_type.argtypes = [ctypes.c_int]
    for name in (
        "ov_executorch_compiled_delegate",
        "ov_executorch_take_last_error",
        "ov_executorch_compile_properties",
    ):
        getattr(library, name).restype = ctypes.c_long
    library.ov_executorch_compile_properties.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_char_p,
        ctypes.c_size_t,
    ]
    library.ov_executorch_compiled_delegate.argtypes = [
        ctypes.c_size_t,
        ctypes.c_char_p,
        ctypes.c_size_t,
    ]
    library.ov_executorch_take_last_error.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    library.ov_executorch_checksum.restype = ctypes.c_uint64
    library.ov_executorch_check_payload.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    library.ov_executorch_checksum.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    logger.debug("loaded the %s backend from %s", BACKEND_ID, path)
    return library


def load_backend() -> ctypes.CDLL:
    """Load the native backend once per process, registering it with ExecuTorch; return it.

    ``import ov_runtime`` already calls this; call it to get the reason when
    the backend is missing.

    Raises:
        BackendUnavailableError: The library is missing (the ``ov-runtime``
            package was installed without its native build), cannot be loaded,
            or loaded but ExecuTorch's registry refused its name (another
            library registered a backend named ``ov_spec.BACKEND_ID`` first).
    """
    library = _library()
    refused = _text(library.ov_executorch_registration_error())
    if refused:
        raise BackendUnavailableError(f"the {BACKEND_ID} backend did not register: {refused}")
    return library


def register_at_import() -> None:
    """Load and register the backend if it can be; leave any failure to :func:`load_backend`.

    Called once by ``import ov_runtime``, so that a program loaded with
    ``executorch.runtime`` finds this backend. A missing library must not stop
    lowering, which needs no native code, so the failure is only logged here.
    """
    try:
        load_backend()
    except BackendUnavailableError as error:
        logger.debug("the %s backend is not registered: %s", BACKEND_ID, error)


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
    reason = _text(library.ov_executorch_unavailable_reason())
    if reason:
        logger.warning("the %s backend is not available: %s", BACKEND_ID, reason)
        return False
    return True


def compiled_delegates() -> list[dict[str, str]]:
    """Return what each delegate alive in this process was compiled with, oldest first.

    A delegate is alive from the loading of its method until ExecuTorch
    destroys it (when the method and its program are freed).

    Each entry maps ``device`` to the device string and each OpenVINO
    property the delegate set, plus ``INFERENCE_PRECISION_HINT``, to the value
    the compiled model reports (``ov_compiled_model_get_property``), so a
    caller can check that what it asked for was applied. Properties only the
    core keeps, such as ``CACHE_DIR``, are not reported.

    Raises:
        BackendUnavailableError: The native backend cannot be loaded.
    """
    function = load_backend().ov_executorch_compiled_delegate
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
    return _read_text(load_backend().ov_executorch_take_last_error) or ""


def native_element_type(scalar_type: int) -> str:
    """OpenVINO's element type the native runtime binds an ExecuTorch ``ScalarType`` code to.

    ``""`` for a dtype a delegate does not take. The runtime's mapping agrees
    with ``ov_spec.DELEGATE_DTYPES``.
    """
    return _text(load_backend().ov_executorch_element_type(scalar_type))


def int8_products_exact() -> bool:
    """Whether this CPU computes OpenVINO's int8 products exactly for any 8-bit weights.

    True on x86 CPUs with VNNI (AVX512-VNNI, AVX-VNNI) and on other
    architectures. Elsewhere oneDNN's int8 kernels add two u8 x s8 products
    into a saturating int16, so a delegate whose payload has wide int8
    weights (``Payload.wide_int8_weights``) compiles without the CPU plugin's
    low-precision transformations (``LP_TRANSFORMS_MODE=NO``) and computes its
    int8 layers in float32.

    Raises:
        BackendUnavailableError: The native backend cannot be loaded.
    """
    return bool(load_backend().ov_executorch_int8_products_exact())


def compile_properties(payload: bytes) -> dict[str, str]:
    """The OpenVINO properties the native runtime compiles a delegate payload with here.

    The payload's own properties, plus what only the machine that loads it
    knows: the default model cache folder as ``CACHE_DIR`` when the payload
    names none, and ``LP_TRANSFORMS_MODE=NO`` for wide int8 weights on a CPU
    whose int8 products are not exact (:func:`int8_products_exact`). The
    native runtime decides these (``compile_properties`` in
    ``native/compiled_model.h``); this asks it rather than deriving them again.

    Args:
        payload: One delegate's processed bytes.

    Raises:
        BackendUnavailableError: The native backend cannot be loaded.
        ValueError: The native runtime refuses the payload; the message says why.
    """
    text = _read_text(load_backend().ov_executorch_compile_properties, payload, len(payload))
    if text is None:
        raise ValueError(f"the native runtime refuses the payload: {take_last_error()}")
    return dict(line.split("=", 1) for line in text.splitlines())


def native_checksum(data: bytes) -> int:
    """The payload checksum the native runtime computes over ``data`` (XXH3-64), any length.

    Equal to the ``xxhash`` package's ``xxh3_64_intdigest``, which lowering
    writes.
    """
    return int(load_backend().ov_executorch_checksum(data, len(data)))


def payload_refusal(payload: bytes) -> str:
    """Why the native runtime refuses a delegate payload before OpenVINO reads it; "" if it does not.

    Runs the checks a delegate's ``init`` runs first, and compiles nothing:
    the layout, the checksum (verified before any section is read), the
    flags, the XML's nesting depth and element count, and the signature
    against the IR's Parameters and Results. A refusal is also logged, as
    ``init`` logs it.

    Args:
        payload: One delegate's processed bytes (from ``OVEXIR`` to the end
            of its last section).

    Raises:
        BackendUnavailableError: The native backend cannot be loaded.
    """
    if load_backend().ov_executorch_check_payload(payload, len(payload)) == 0:
        return ""
    return take_last_error()


def _text(value: bytes | None) -> str:
    return (value or b"").decode("utf-8", errors="replace")


def _read_text(function: Any, *args: bytes | int) -> str | None:
    """Call a native ``(…, buffer, size) -> length`` function; None when it returns -1."""
    length = int(function(*args, None, 0))
    if length < 0:
        return None
    buffer = ctypes.create_string_buffer(length + 1)
    function(*args, buffer, length + 1)
    return _text(buffer.value)
