"""Errors raised by :mod:`ov_convert`."""


class ConversionError(RuntimeError):
    """OpenVINO could not convert a partition into a model the runtime can bind."""


class PayloadError(ValueError):
    """Bytes that are not a payload of this backend (wrong magic, version or sizes)."""
