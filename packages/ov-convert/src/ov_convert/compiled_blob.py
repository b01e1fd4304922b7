"""The optional compiled blob: the model compiled for its device when the program is lowered.

OpenVINO's ``CompiledModel.export_model`` writes a compiled model that
``Core.import_model`` reads back without compiling; a blob is valid for the
OpenVINO build and the device it was made with only, so the payload records
both and the runtime falls back to the IR when either differs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping

import openvino as ov

from ov_convert.exceptions import ConversionError
from ov_convert.payload import CompiledBlob

logger = logging.getLogger(__name__)

# Properties of the machine that loads the program, not of the compiled model.
_LOAD_TIME_PROPERTIES = frozenset({"CACHE_DIR"})


def compile_blob(model: ov.Model, device: str, properties: Mapping[str, str]) -> CompiledBlob:
    """Compile ``model`` for ``device`` with ``properties`` and export it.

    Args:
        model: The converted model, as the payload's IR holds it.
        device: One OpenVINO device (``CPU``, ``GPU.0``), present on this machine.
        properties: The payload's OpenVINO properties; ``CACHE_DIR`` is left out.

    Raises:
        ConversionError: OpenVINO cannot compile the model for ``device`` here
            (the message lists the devices it finds).
    """
    core = ov.Core()
    config = {key: value for key, value in properties.items() if key not in _LOAD_TIME_PROPERTIES}
    started = time.perf_counter()
    try:
        compiled = core.compile_model(model, device, config)
        name = str(core.get_property(device, "FULL_DEVICE_NAME"))
    except RuntimeError as error:
        raise ConversionError(
            f"cannot compile the model for device {device!r} to store a compiled blob "
            f"(compile spec 'compiled_blob'): {error}; devices here: "
            f"{', '.join(core.available_devices) or 'none'}"
        ) from error
    data = compiled.export_model().getvalue()
    logger.debug(
        "compiled a %d-byte blob for %s (%s) in %.2f s",
        len(data),
        device,
        name,
        time.perf_counter() - started,
    )
    return CompiledBlob(openvino_version=ov.get_version(), device_name=name, data=data)
