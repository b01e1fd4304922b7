"""A call of a compiled model through OpenVINO's C API alone: the floor a backend's per-call time is held to.

The model is compiled and its infer request made through ``libopenvino_c``
(from the openvino wheel, through ctypes); the inputs are copied once into the
request's own input tensors, so a call is ``ov_infer_request_infer`` and
nothing else, plus the few hundred nanoseconds of a ctypes call.
"""

from __future__ import annotations

import ctypes
import tempfile
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import openvino as ov

_OK = 0


def _library() -> ctypes.CDLL:
    """OpenVINO's C library from the wheel's ``libs`` folder (``libopenvino_c.so.<version>``)."""
    folder = Path(ov.__file__).parent / "libs"
    found = sorted(folder.glob("libopenvino_c.so*"))
    if not found:
        raise FileNotFoundError(f"no libopenvino_c.so in {folder}")
    return ctypes.CDLL(str(found[0]))


def _check(status: int, step: str) -> None:
    if status != _OK:
        raise RuntimeError(f"OpenVINO's C API failed to {step} (status {status})")


def c_api_call(
    model: ov.Model, inputs: Sequence[np.ndarray], properties: dict[str, str]
) -> Callable[[], None]:
    """Compile ``model`` for the CPU with ``properties`` through the C API; return one inference.

    Args:
        model: A model with static input shapes matching ``inputs``.
        inputs: One contiguous array per model input, in order.
        properties: OpenVINO compile properties (``{"INFERENCE_PRECISION_HINT": "f32"}``).

    Raises:
        RuntimeError: A C API call failed (the step is named).
    """
    api = _library()
    pointer = ctypes.c_void_p
    core, read, compiled, request = pointer(), pointer(), pointer(), pointer()
    _check(api.ov_core_create(ctypes.byref(core)), "create a core")
    with tempfile.TemporaryDirectory(prefix="ov_c_api_") as folder:
        xml = Path(folder) / "model.xml"
        ov.save_model(model, xml, compress_to_fp16=False)
        _check(
            api.ov_core_read_model(core, str(xml).encode(), None, ctypes.byref(read)),
            "read the model",
        )
    pairs = [text.encode() for pair in properties.items() for text in pair]
    _check(
        api.ov_core_compile_model(
            core, read, b"CPU", ctypes.c_size_t(len(pairs)), ctypes.byref(compiled), *pairs
        ),
        "compile the model",
    )
    _check(
        api.ov_compiled_model_create_infer_request(compiled, ctypes.byref(request)),
        "create an infer request",
    )
    for index, array in enumerate(inputs):
        tensor, data, size = pointer(), pointer(), ctypes.c_size_t()
        _check(
            api.ov_infer_request_get_input_tensor_by_index(request, index, ctypes.byref(tensor)),
            f"get input {index}",
        )
        _check(api.ov_tensor_data(tensor, ctypes.byref(data)), f"map input {index}")
        _check(api.ov_tensor_get_byte_size(tensor, ctypes.byref(size)), f"size input {index}")
        contiguous = np.ascontiguousarray(array)
        if size.value != contiguous.nbytes:
            raise RuntimeError(f"input {index} takes {size.value} bytes, not {contiguous.nbytes}")
        ctypes.memmove(data, contiguous.ctypes.data, size.value)
        api.ov_tensor_free(tensor)
    infer = api.ov_infer_request_infer

    def call() -> None:
        _check(infer(request), "infer")

    def release() -> None:
        api.ov_infer_request_free(request)
        api.ov_compiled_model_free(compiled)
        api.ov_model_free(read)
        api.ov_core_free(core)

    weakref.finalize(call, release)
    return call
