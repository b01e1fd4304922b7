"""Load and run ExecuTorch programs with this backend registered.

ExecuTorch's ``Method`` reads its ``Program``'s data and does not keep the
program alive, so dropping the program while a method is in use crashes the
process. The objects here hold what they read from: a method keeps its
program, and the program its bytes. Programs run in the native library
(:mod:`ov_runtime.native.runner`), without holding the GIL; what the facade
reads of a program it reads in place (:mod:`ov_runtime.facade.program_reader`),
so running a program never imports ExecuTorch's compiler.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from ov_runtime.exceptions import ExecutionError
from ov_runtime.facade.method_inputs import (
    MethodInput,
    as_input_list,
    check_inputs,
    planned_inputs,
)
from ov_runtime.facade.program_reader import Plan, read_plans
from ov_runtime.facade.values import TORCH_DTYPES, laid_out, write_value
from ov_runtime.native import load_backend, take_last_error
from ov_runtime.native.runner import CompiledCalls, NativeMethod, NativeRunner, calls_in_flight
from ov_spec import runtime_options


class LoadedMethod:
    """One method of a :class:`LoadedProgram`, ready to run; it keeps its program alive.

    Attributes:
        name: The method's name (``forward``).
        program: The program it belongs to.
    """

    def __init__(self, name: str, program: LoadedProgram) -> None:
        self.name = name
        self.program = program
        self._inputs = program.method_inputs(name)
        self._orders = [spec.dim_order for spec in self._inputs]

    @property
    def inputs(self) -> list[MethodInput]:
        """What the method takes at each input: kind, dtype, planned sizes, dim order."""
        return list(self._inputs)

    def execute(self, inputs: Sequence[Any] | Any) -> list[Any]:
        """Run the method on ``inputs`` and return its outputs (tensors and scalars), in order.

        The call runs in the native library without holding the GIL, so other
        Python threads run meanwhile (each program runs one call at a time).

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
        # PyTorch's ops below run native code too: interpreter exit waits for them.
        with calls_in_flight:
            outputs = self.program.execute_as_before(self.name, inputs)
            if outputs is not None:
                return outputs
            values = as_input_list(inputs, len(self._inputs), self.name)
            check_inputs(self._inputs, values)
            # Tensors in the method's memory order, alive while the native side reads them.
            held = [
                laid_out(value, order) if isinstance(value, torch.Tensor) else value
                for value, order in zip(values, self._orders, strict=True)
            ]
            return self.program.execute(self.name, held, self._orders, values)


@dataclass(frozen=True)
class _Method:
    """A loaded method's native side: its values, the options it loaded with, and its calls."""

    method: NativeMethod
    options: dict[str, str]
    calls: CompiledCalls


class LoadedProgram:
    """A ``.pte`` loaded to run with this backend; it keeps the bytes it reads from.

    The native library verifies and runs it (ExecuTorch's Module API, with
    ExecuTorch's kernels for the nodes left on the CPU).

    Attributes:
        data: The ``.pte`` bytes.
        data_file: The bytes of the data file (``.ptd``) it loaded with, or None.
        backend_options: The load-time options every method's delegates get
            (:func:`ov_spec.runtime_options`: ``device`` or OpenVINO property
            names, with text values).
        enable_etdump: Whether the program records ExecuTorch's events for
            :meth:`write_etdump`.

    Raises:
        CompileSpecError: A backend option is unknown or has a bad value.
        ExecutionError: ExecuTorch refused the program; with its error code.
    """

    def __init__(
        self,
        data: bytes,
        backend_options: Mapping[str, object] | None = None,
        enable_etdump: bool = False,
        data_file: bytes | None = None,
    ) -> None:
        self.data, self.data_file = data, data_file
        self.backend_options = runtime_options(backend_options or {})
        self.enable_etdump = enable_etdump
        # Verifies the flatbuffer before it is read here.
        self._runner = NativeRunner(data, data_file, etdump=enable_etdump)
        try:
            self._plans: dict[str, Plan] = {plan.name: plan for plan in read_plans(data)}
        except ValueError as error:
            raise ExecutionError(str(error)) from error
        self._methods: dict[str, _Method] = {}
        self._lock = threading.Lock()

    @property
    def method_names(self) -> set[str]:
        """The names of the program's methods."""
        return set(self._plans)

    def method_inputs(self, name: str) -> list[MethodInput]:
        """What each input of method ``name`` takes, as the program records it.

        Raises:
            ExecutionError: The program has no such method.
        """
        self._check_name(name)
        return planned_inputs(self._plans[name])

    def load_method(
        self, name: str = "forward", backend_options: Mapping[str, object] | None = None
    ) -> LoadedMethod:
        """Load method ``name`` (each delegate compiles now; a second call reuses the first).

        Args:
            name: The method.
            backend_options: Load-time options for this method's delegates, over
                the program's (:attr:`backend_options`): a compile spec key that
                sets something at load (``device``, ``inference_precision``) or an
                OpenVINO property name (``INFERENCE_PRECISION_HINT``); each
                overrides the value the program was lowered with, and a compiled
                blob is then compiled anew from the IR.

        Raises:
            CompileSpecError: A backend option is unknown or has a bad value.
            ExecutionError: The program has no such method, it was loaded already
                with other options than ``backend_options`` gives (without them, a
                loaded method is returned as it is), or ExecuTorch or a delegate refused to load
                it (a device not present, a property OpenVINO refuses); the
                delegate's reason is in the message.
        """
        self._check_name(name)
        options = {**self.backend_options, **runtime_options(backend_options or {})}
        with self._lock:
            if name not in self._methods:
                plan = self._plans[name]
                method = self._runner.load_method(name, len(plan.inputs), plan.num_outputs, options)
                orders = [spec.dim_order for spec in planned_inputs(plan)]
                calls = method.compiled_calls(
                    [order == tuple(range(len(order))) for order in orders],
                    torch.Tensor,
                    torch.strided,
                    torch.empty_strided,
                    TORCH_DTYPES,
                )
                self._methods[name] = _Method(method, options, calls)
            elif backend_options is not None and self._methods[name].options != options:
                raise ExecutionError(
                    f"method {name!r} is loaded already, with the backend options "
                    f"{self._methods[name].options}; load the program again for {options}"
                )
        return LoadedMethod(name, self)

    def execute(
        self,
        name: str,
        inputs: Sequence[Any],
        orders: Sequence[Sequence[int]],
        given: Sequence[Any],
    ) -> list[Any]:
        """Run loaded method ``name`` on checked inputs, tensors laid out in ``orders``; copy its outputs.

        ``given`` are the inputs as the caller gave them, before they were laid
        out: calls described as they are take the compiled path from now on
        (:meth:`execute_as_before`).

        Raises:
            ExecutionError: ExecuTorch or a delegate failed.
        """
        with self._lock:  # the method's native values serve every call
            loaded = self._methods[name]
            loaded.calls.forget()  # until the native values describe ``given``
            for native, value, order in zip(loaded.method.inputs, inputs, orders, strict=True):
                write_value(native, value, order)
            loaded.calls.accept(given)
            return loaded.calls.execute_written()

    def execute_as_before(self, name: str, inputs: Any) -> list[Any] | None:
        """Run loaded method ``name`` on ``inputs`` described as the last call's were, else None.

        The compiled calls (:class:`ov_runtime.native.runner.CompiledCalls`) take
        a list or tuple of inputs whose types, shapes, dtypes and layouts (and
        scalars' values) are those of the last call that ran through
        :meth:`execute`, which checked them; anything else is left to that.

        Raises:
            ExecutionError: ExecuTorch or a delegate failed.
        """
        with self._lock:
            return self._methods[name].calls.execute(inputs)

    def write_etdump(self, path: str | Path) -> None:
        """Write the events recorded since the program loaded, or since the last write, as an ETDump.

        The file is ExecuTorch's ETDump (``executorch.devtools.Inspector(etdump_path=...)``
        reads it), as ``executorch.runtime``'s ``Program.write_etdump_result_to_file``
        writes it. It holds ExecuTorch's own events (method load and execute, each
        operator left on the CPU) and each delegate's: ``OpenVINO compile`` (its
        metadata is the delegate's record, as :func:`compiled_delegates` shows it),
        ``OpenVINO infer`` per call, and with the ``perf_count`` option (OpenVINO's
        ``PERF_COUNT``, a compile spec or a load-time option) one event per executed
        OpenVINO layer, named for the layer, with ``"<layer type> <exec type>"``
        as its metadata. Recording starts anew after each write.

        Raises:
            ExecutionError: The program was loaded without ``enable_etdump=True``,
                or the file cannot be written.
        """
        if not self.enable_etdump:
            raise ExecutionError(
                "the program records no events; load it with load_program(..., "
                "enable_etdump=True) to write an ETDump"
            )
        with self._lock:
            self._runner.write_etdump(Path(path))

    def _check_name(self, name: str) -> None:
        if name not in self._plans:
            raise ExecutionError(
                f"the program has no method {name!r}; it has {sorted(self._plans)}"
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


def load_program(
    pte: bytes | str | Path,
    backend_options: Mapping[str, object] | None = None,
    *,
    enable_etdump: bool = False,
    data_path: str | Path | None = None,
) -> LoadedProgram:
    """Load a ``.pte`` (bytes or a path) into ExecuTorch's runtime with this backend registered.

    Args:
        pte: The program.
        data_path: A data file (``.ptd``) holding named data the program keeps
            outside the ``.pte``, as ``executorch.runtime``'s
            ``load_program(..., data_path=...)`` takes it: the delegates'
            weights, when the program was lowered with ExecuTorch's external
            constants (``docs/python-api.md``). A delegate whose weights are
            in neither fails its method's load, naming them.
        backend_options: Load-time options for every delegate of this backend,
            as ExecuTorch's ``LoadBackendOptionsMap`` gives them: ``device`` or a
            compile spec key with an OpenVINO property (``inference_precision``),
            checked here, or an OpenVINO property name in upper case
            (``INFERENCE_NUM_THREADS``), which OpenVINO checks when the delegate
            compiles. Each overrides the value the program was lowered with, so
            one ``.pte`` runs on the device and at the precision chosen where it
            loads (:meth:`LoadedProgram.load_method` takes them per method).
        enable_etdump: Record ExecuTorch's events with an ETDump event tracer,
            as ``executorch.runtime``'s ``load_program(..., enable_etdump=True)``
            does; :meth:`LoadedProgram.write_etdump` writes them. Add the
            ``perf_count`` option for OpenVINO's per-layer events.

    Raises:
        CompileSpecError: A backend option is unknown or has a bad value.
        BackendUnavailableError: The native backend cannot be loaded.
        ExecutionError: The bytes are not a ``.pte``, or ExecuTorch refused the program.
        OSError: A path cannot be read.
    """
    load_backend()
    take_last_error()  # a reason from an earlier call does not explain this one
    if isinstance(pte, (bytes, bytearray, memoryview)):
        data, where = bytes(pte), "the buffer"
    else:
        path = Path(pte)
        if not path.is_file():
            raise FileNotFoundError(f"no program at {path}")
        data, where = path.read_bytes(), str(path)
    check_identifier(data[:8], where)
    data_file = None if data_path is None else Path(data_path).read_bytes()
    return LoadedProgram(data, backend_options, enable_etdump, data_file)


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
