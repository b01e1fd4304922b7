"""Load and run ExecuTorch programs with this backend registered.

ExecuTorch's ``Method`` reads its ``Program``'s data and does not keep the
program alive, so dropping the program while a method is in use crashes the
process. The objects here hold what they read from: a method keeps its
program, and the program its bytes.
"""

from __future__ import annotations

import mmap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import executorch.runtime

from ov_runtime.exceptions import ExecutionError
from ov_runtime.facade.method_inputs import as_input_list, check_inputs, static_inputs
from ov_runtime.native import load_backend, take_last_error


def _failure(message: str, error: RuntimeError) -> ExecutionError:
    """An ExecutionError with ExecuTorch's message and, if a delegate failed, its reason."""
    reason = take_last_error()
    return ExecutionError(
        f"{message}: {error}" + (f"; OpenVINO delegate: {reason}" if reason else "")
    )


class LoadedMethod:
    """One method of a :class:`LoadedProgram`, ready to run; it keeps its program alive.

    Attributes:
        name: The method's name (``forward``).
        program: The program it belongs to.
    """

    def __init__(
        self, name: str, method: executorch.runtime.Method, program: LoadedProgram
    ) -> None:
        self.name = name
        self.program = program
        self._method = method
        self._static: list[bool] | None = None

    @property
    def metadata(self) -> Any:
        """ExecuTorch's ``MethodMeta``: the number, dtypes and planned sizes of inputs and outputs."""
        return self._method.metadata

    def execute(self, inputs: Sequence[Any] | Any) -> list[Any]:
        """Run the method on ``inputs`` and return its outputs (tensors and scalars), in order.

        Args:
            inputs: The method's inputs (tensors and scalars) in order, or one
                tensor for a method of one input.

        Raises:
            TypeError: ``inputs`` is not a sequence (None, a number, a string).
            ExecutionError: An input the method does not take (count, dtype,
                rank, a static size, or a size past its bound: the message names
                the input, what the method takes and what was given), or
                ExecuTorch or a delegate failed; the delegate's reason is in the
                message and in the log.
        """
        meta = self.metadata
        values = as_input_list(inputs, meta.num_inputs(), self.name)
        if self._static is None:
            self._static = self.program.static_inputs(self.name)
        check_inputs(meta, values, self._static)
        take_last_error()  # a reason from an earlier call does not explain this one
        try:
            return list(self._method.execute(values))
        except RuntimeError as error:
            raise _failure(f"method {self.name!r} failed", error) from error


class LoadedProgram:
    """A ``.pte`` loaded into ExecuTorch's runtime; it keeps the bytes ExecuTorch reads from.

    Attributes:
        source: The ``.pte`` bytes, or the path it was loaded from.
    """

    def __init__(self, program: executorch.runtime.Program, source: bytes | Path) -> None:
        self.source = source
        self._program = program

    @property
    def method_names(self) -> set[str]:
        """The names of the program's methods."""
        return set(self._program.method_names)

    def metadata(self, name: str) -> Any:
        """ExecuTorch's ``MethodMeta`` of method ``name``.

        Raises:
            ExecutionError: The program has no such method.
        """
        self._check_name(name)
        return self._program.metadata(name)

    def load_method(self, name: str = "forward") -> LoadedMethod:
        """Load method ``name`` (each delegate compiles now; a second call reuses the first).

        Raises:
            ExecutionError: The program has no such method, or ExecuTorch or a
                delegate refused to load it; the delegate's reason is in the message.
        """
        self._check_name(name)
        take_last_error()
        try:
            method = self._program.load_method(name)
        except RuntimeError as error:
            raise _failure(f"method {name!r} failed", error) from error
        if method is None:
            raise ExecutionError(f"ExecuTorch could not load method {name!r}")
        return LoadedMethod(name, method, self)

    def static_inputs(self, name: str) -> list[bool]:
        """Whether each input of method ``name`` is a static tensor."""
        if isinstance(self.source, bytes):
            return static_inputs(self.source, name)
        with (
            self.source.open("rb") as file,
            mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            return static_inputs(data, name)  # type: ignore[arg-type]

    def _check_name(self, name: str) -> None:
        if name not in self._program.method_names:
            raise ExecutionError(
                f"the program has no method {name!r}; it has {sorted(self._program.method_names)}"
            )


def check_identifier(head: bytes, where: str) -> None:
    """Refuse bytes that do not start like an ExecuTorch program (``ET`` and a version at byte 4).

    Raises:
        ExecutionError: ``head`` (the first 8 bytes or more) is not a ``.pte``'s;
            ``where`` names the file or buffer.
    """
    if head[4:6] != b"ET":
        kind = "an exported program (.pt2): lower it first" if head[:2] == b"PK" else "not one"
        raise ExecutionError(
            f"{where} is not an ExecuTorch program (.pte), which carries the identifier 'ET..' "
            f"at byte 4; it is {kind}"
        )


def load_program(pte: bytes | str | Path) -> LoadedProgram:
    """Load a ``.pte`` (bytes or a path) into ExecuTorch's runtime with this backend registered.

    Raises:
        BackendUnavailableError: The native backend cannot be loaded.
        ExecutionError: The bytes are not a ``.pte``, or ExecuTorch refused the program.
        OSError: The path cannot be read.
    """
    load_backend()
    take_last_error()  # a reason from an earlier call does not explain this one
    source = bytes(pte) if isinstance(pte, (bytes, bytearray, memoryview)) else Path(pte)
    if isinstance(source, Path):
        if not source.is_file():
            raise FileNotFoundError(f"no program at {source}")
        with source.open("rb") as file:
            check_identifier(file.read(8), str(source))
    else:
        check_identifier(source[:8], "the buffer")
    try:
        program = executorch.runtime.Runtime.get().load_program(source)
    except RuntimeError as error:
        raise _failure("ExecuTorch could not load the program", error) from error
    return LoadedProgram(program, source)


def run(
    program: LoadedProgram | bytes | str | Path,
    inputs: Sequence[Any] | Any,
    method: str = "forward",
) -> list[Any]:
    """Run ``method`` of a program on ``inputs`` and return its outputs.

    Args:
        program: A loaded program, or ``.pte`` bytes or a path.
        inputs: The method's inputs (tensors and scalars) in order, or one
            tensor for a method of one input.
        method: The method name.

    Raises:
        TypeError: ``inputs`` is not a sequence.
        ExecutionError: The method does not exist, an input is not what it
            takes, or ExecuTorch or a delegate refused to load or run it; the
            message carries the delegate's reason, which it also logs to stderr.

    Returns:
        The method's outputs (tensors and scalars), in order.
    """
    loaded = program if isinstance(program, LoadedProgram) else load_program(program)
    return loaded.load_method(method).execute(inputs)
