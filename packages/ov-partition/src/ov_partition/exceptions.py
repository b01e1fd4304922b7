"""Errors raised by :mod:`ov_partition`."""

from ov_spec import CompileSpecError

__all__ = ["CompileSpecError"]
