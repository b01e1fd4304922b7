"""Errors raised by :mod:`ov_runtime`."""


class BackendUnavailableError(RuntimeError):
    """The native backend library could not be loaded into this process."""


class ExecutionError(RuntimeError):
    """The ExecuTorch runtime refused to load or run a program."""
