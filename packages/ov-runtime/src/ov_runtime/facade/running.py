"""Run ExecuTorch programs with this backend loaded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from executorch.runtime import Program, Runtime

from ov_runtime.exceptions import ExecutionError
from ov_runtime.native import load_backend, take_last_error
from ov_spec import DTYPES


def _failure(message: str, error: RuntimeError) -> ExecutionError:
    """An ExecutionError with ExecuTorch's message and, if a delegate failed, its reason."""
    reason = take_last_error()
    return ExecutionError(
        f"{message}: {error}" + (f"; OpenVINO delegate: {reason}" if reason else "")
    )


def load_program(pte: bytes | str | Path) -> Program:
    """Load a ``.pte`` (bytes or a path) into ExecuTorch's runtime with this backend registered.

    Raises:
        BackendUnavailableError: The native backend cannot be loaded.
        ExecutionError: ExecuTorch refused the program.
    """
    load_backend()
    take_last_error()  # a reason from an earlier call does not explain this one
    try:
        return Runtime.get().load_program(pte)
    except RuntimeError as error:
        raise _failure("ExecuTorch could not load the program", error) from error


# ExecuTorch's ScalarType code of each dtype a program may take.
_DTYPES = {dtype.scalar_type: getattr(torch, dtype.torch_name) for dtype in DTYPES}


def _check_tensor_inputs(meta: Any, inputs: Sequence[Any]) -> None:
    """Name the input whose dtype or rank the method does not take (ExecuTorch only gives a code)."""
    for index, value in enumerate(inputs):
        if not isinstance(value, torch.Tensor):
            continue
        try:
            planned = meta.input_tensor_meta(index)
        except RuntimeError:  # the method takes a scalar there; ExecuTorch says so
            continue
        dtype = _DTYPES.get(planned.dtype())
        if dtype is not None and value.dtype != dtype:
            raise ExecutionError(f"input {index} has dtype {value.dtype}; the method takes {dtype}")
        if value.dim() != len(planned.sizes()):
            raise ExecutionError(
                f"input {index} has shape {tuple(value.shape)}; the method takes rank "
                f"{len(planned.sizes())} (planned for at most {tuple(planned.sizes())})"
            )


def run(
    program: Program | bytes | str | Path, inputs: Sequence[Any], method: str = "forward"
) -> list[Any]:
    """Run ``method`` of a program on ``inputs`` and return its outputs.

    Args:
        program: A loaded program, or ``.pte`` bytes or a path.
        inputs: The method's inputs (tensors and scalars), flattened in order.
        method: The method name.

    Raises:
        ExecutionError: The method does not exist, takes another number of
            inputs, or ExecuTorch or a delegate refused to load or run it; the
            message carries the delegate's reason, which it also logs to stderr.

    Returns:
        The method's outputs (tensors and scalars), in order.
    """
    loaded = program if isinstance(program, Program) else load_program(program)
    if method not in loaded.method_names:
        raise ExecutionError(
            f"the program has no method {method!r}; it has {sorted(loaded.method_names)}"
        )
    meta = loaded.metadata(method)
    if len(inputs) != meta.num_inputs():
        raise ExecutionError(
            f"method {method!r} takes {meta.num_inputs()} inputs; {len(inputs)} were given"
        )
    _check_tensor_inputs(meta, inputs)
    take_last_error()
    try:
        handle = loaded.load_method(method)
        if handle is None:
            raise ExecutionError(f"ExecuTorch could not load method {method!r}")
        return list(handle.execute(list(inputs)))
    except RuntimeError as error:
        raise _failure(f"method {method!r} failed", error) from error
