"""Errors raised by :mod:`ov_spec`."""


class CompileSpecError(ValueError):
    """A compile spec has an unknown key, a bad value, or bytes that are not UTF-8."""
