"""Preprocess of the OpenVINO backend: partition graph to OpenVINO IR payload."""

from ov_convert.convert import (
    convert_module,
    element_type,
    output_values,
    serialize,
    signature,
    user_input_values,
)
from ov_convert.exceptions import ConversionError, PayloadError
from ov_convert.payload import (
    CACHE_POSITION_ARGUMENTS,
    COPIED_ARGUMENT,
    FIRST_POSITION_ARGUMENT,
    MAGIC,
    POSITIONS_ARGUMENT,
    SCALAR_ARGUMENT,
    TENSOR_ARGUMENT,
    VERSION,
    CompiledBlob,
    NamedWeights,
    Payload,
)
from ov_convert.preprocess import OvExecutorchBackend

__all__ = [
    "CACHE_POSITION_ARGUMENTS",
    "COPIED_ARGUMENT",
    "FIRST_POSITION_ARGUMENT",
    "MAGIC",
    "POSITIONS_ARGUMENT",
    "SCALAR_ARGUMENT",
    "TENSOR_ARGUMENT",
    "VERSION",
    "CompiledBlob",
    "ConversionError",
    "NamedWeights",
    "OvExecutorchBackend",
    "Payload",
    "PayloadError",
    "convert_module",
    "element_type",
    "output_values",
    "serialize",
    "signature",
    "user_input_values",
]
