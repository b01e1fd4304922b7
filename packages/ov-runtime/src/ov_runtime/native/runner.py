"""Programs run by the native library through ExecuTorch's Module API (``native/runner.h``).

Programs load through ctypes, and a method runs in a small compiled
extension (:class:`CompiledCalls`); both release the GIL while the native
code runs, so Python threads run programs in parallel; ExecuTorch's own
Python bindings hold it. Values cross as :class:`Value` structs: a tensor's
sizes, dim order and data pointer (not copied), or a scalar. Imports neither
PyTorch nor ExecuTorch's Python package.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import importlib.util
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ov_runtime.exceptions import BackendUnavailableError, ExecutionError
from ov_runtime.native.library import load_backend, take_last_error

if TYPE_CHECKING:
    from ov_runtime.native import _method_calls

MAX_RANK = 16
INT, BOOL, DOUBLE, TENSOR = 2, 3, 4, 5
"""A value's kind (``ov_executorch_value.kind``): the tag ExecuTorch's program schema gives it
(``KernelTypes`` in ``program.fbs``), which the program reader reads too."""


class Value(ctypes.Structure):
    """``ov_executorch_value`` of ``c_api.h``: one input or output."""

    _fields_ = (
        ("kind", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int64),
        ("sizes", ctypes.c_int64 * MAX_RANK),
        ("dim_order", ctypes.c_uint8 * MAX_RANK),
        ("data", ctypes.c_void_p),
        ("nbytes", ctypes.c_size_t),
        ("integer", ctypes.c_int64),
        ("real", ctypes.c_double),
    )


KERNELS_LIBRARY = "libexecutorch_kernels_optimized.so"


def _load_cpu_kernels() -> None:
    """Load ExecuTorch's CPU kernels, for the nodes a program leaves on the CPU.

    The executorch wheel's optimized kernel set registers itself when it
    loads; its Python bindings link the same file, so whichever loads it
    first, it is one library with one registration.

    Raises:
        BackendUnavailableError: The executorch wheel or its kernels are missing.
    """
    spec = importlib.util.find_spec("executorch")  # finds the package without importing it
    folders = list(spec.submodule_search_locations or []) if spec else []
    path = Path(folders[0] if folders else ".") / "lib" / KERNELS_LIBRARY
    try:
        ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
    except OSError as error:
        raise BackendUnavailableError(f"cannot load ExecuTorch's CPU kernels: {error}") from error


@functools.cache
def _runner_library() -> ctypes.CDLL:
    """The native library, with its runner functions declared and ExecuTorch's CPU kernels loaded."""
    library = load_backend()
    library.ov_executorch_value_size.restype = ctypes.c_size_t
    if (size := library.ov_executorch_value_size()) != ctypes.sizeof(Value):
        raise BackendUnavailableError(
            f"the native library's ov_executorch_value has {size} bytes, this package's mirror "
            f"{ctypes.sizeof(Value)}: reinstall ov-runtime so that both come from one build"
        )
    _load_cpu_kernels()
    library.ov_executorch_runner_load.restype = ctypes.c_int
    library.ov_executorch_runner_load.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_void_p),
    ]
    library.ov_executorch_runner_write_etdump.restype = ctypes.c_int
    library.ov_executorch_runner_write_etdump.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    library.ov_executorch_runner_free.restype = None
    library.ov_executorch_runner_free.argtypes = [ctypes.c_void_p]
    library.ov_executorch_runner_load_method.restype = ctypes.c_int
    library.ov_executorch_runner_load_method.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_char_p),
        ctypes.POINTER(ctypes.c_char_p),
        ctypes.c_size_t,
    ]
    return library


class CallsInFlight:
    """Counts calls into native code in progress so that interpreter exit waits for them.

    Python runs daemon threads until its finalization starts, while the
    process's exit already destroys the native libraries' static objects, and
    a thread that takes the GIL back once finalization has started is ended on
    the spot. Either aborts the process ("terminate called without an active
    exception") when it meets a thread inside OpenVINO, or inside a PyTorch op
    (which gives up the GIL and takes it back in a ``noexcept`` destructor).
    So a caller holds a place (``with calls_in_flight:``) across all its
    native work, tensor copies included, and at exit :meth:`drain` refuses new calls (their threads wait
    in Python until the process ends) and waits for those in progress. Places
    nest: a thread that holds one enters again without waiting.
    """

    def __init__(self) -> None:
        # The count is kept under the bare lock, which is several times cheaper
        # to take than the condition built on it: a call takes it twice.
        self._lock = threading.Lock()
        self._condition = threading.Condition(self._lock)
        self._count = 0
        self._closing = False
        self._depth = threading.local()

    def __enter__(self) -> None:
        """Hold one place while the native work inside the ``with`` block runs."""
        depth: int = getattr(self._depth, "value", 0)
        if depth == 0:
            with self._lock:
                while self._closing:
                    self._condition.wait()  # until the process ends
                self._count += 1
        self._depth.value = depth + 1

    def __exit__(self, *exc_info: object) -> None:
        depth: int = self._depth.value - 1
        self._depth.value = depth
        if depth == 0:
            with self._lock:
                self._count -= 1
                if self._closing:
                    self._condition.notify_all()

    def drain(self, timeout: float = 30.0) -> None:
        """Refuse new calls, then wait up to ``timeout`` seconds for the calls in progress."""
        with self._condition:
            self._closing = True
            self._condition.wait_for(lambda: self._count == 0, timeout)


calls_in_flight = CallsInFlight()
atexit.register(calls_in_flight.drain)


def _failure(what: str, code: int) -> ExecutionError:
    reason = take_last_error()
    return ExecutionError(
        f"{what} failed with ExecuTorch error 0x{code:x}"
        + (f"; OpenVINO delegate: {reason}" if reason else "")
    )


class NativeRunner:
    """One program in the native library; call it from one thread at a time.

    Args:
        data: The ``.pte`` bytes; kept here, since the native side reads them.
        data_file: The bytes of a data file (``.ptd``) holding named data the
            program keeps outside it (ExecuTorch's external data, such as its
            delegates' weights), or None; kept here as well.
        etdump: Record ExecuTorch's events (method loads and calls, and this
            backend's delegate events) for :meth:`write_etdump`.

    Raises:
        BackendUnavailableError: The native library cannot be loaded.
        ExecutionError: ExecuTorch refused the program (its flatbuffer does not
            verify), or no memory was left for it.
    """

    def __init__(self, data: bytes, data_file: bytes | None = None, etdump: bool = False) -> None:
        self._library = _runner_library()
        self._data, self._data_file = data, data_file
        handle = ctypes.c_void_p()
        with calls_in_flight:
            code = self._library.ov_executorch_runner_load(
                data,
                len(data),
                data_file,
                len(data_file or b""),
                int(etdump),
                ctypes.byref(handle),
            )
        if code:
            raise _failure("loading the program", code)
        assert handle.value is not None  # set whenever the code is 0
        self._handle: int = handle.value
        # Not at interpreter exit: a daemon thread may still be inside a call,
        # and the process's end frees the memory anyway.
        weakref.finalize(self, self._library.ov_executorch_runner_free, self._handle).atexit = False

    def load_method(
        self,
        name: str,
        num_inputs: int,
        num_outputs: int,
        options: Mapping[str, str] | None = None,
    ) -> NativeMethod:
        """Load ``name``, which takes ``num_inputs`` and returns ``num_outputs``: its delegates compile now.

        Args:
            name: The method.
            num_inputs: Its input count.
            num_outputs: Its output count.
            options: Load-time options for this backend's delegates (ExecuTorch's
                ``LoadBackendOptionsMap``): ``device`` or OpenVINO property names,
                with text values, each overriding the payload's value.

        Raises:
            ExecutionError: ExecuTorch or a delegate refused it; with the delegate's reason.
        """
        items = list((options or {}).items())
        keys = (ctypes.c_char_p * len(items))(*(key.encode() for key, _ in items))
        values = (ctypes.c_char_p * len(items))(*(value.encode() for _, value in items))
        with calls_in_flight:
            code = self._library.ov_executorch_runner_load_method(
                self._handle, name.encode(), keys, values, len(items)
            )
        if code:
            raise _failure(f"loading method {name!r}", code)
        return NativeMethod(self, name, num_inputs, num_outputs)

    def write_etdump(self, path: Path) -> None:
        """Write the events recorded so far (since the load or the last write) as an ETDump file.

        Raises:
            ExecutionError: The runner records no events, or the file cannot be written.
        """
        with calls_in_flight:
            code = self._library.ov_executorch_runner_write_etdump(self._handle, str(path).encode())
        if code:
            raise _failure(f"writing the ETDump to {path}", code)


class NativeMethod:
    """A loaded method of a :class:`NativeRunner`, whose values serve every call.

    A call fills :attr:`inputs` and runs the method through its
    :meth:`compiled_calls`, which also describes and copies its outputs.
    Call it from one thread at a time.

    Attributes:
        inputs: The method's inputs, to fill before each call.
    """

    def __init__(self, runner: NativeRunner, name: str, num_inputs: int, num_outputs: int) -> None:
        self.name = name
        self.inputs = (Value * num_inputs)()
        self._outputs = (Value * num_outputs)()
        self._runner = runner  # the native method lives as long as its runner

    def compiled_calls(
        self,
        dense: Sequence[bool],
        tensor_type: type,
        strided: object,
        empty_strided: Callable[..., Any],
        dtypes: Mapping[int, object],
    ) -> CompiledCalls:
        """The compiled calls of this method (``native/python/method_calls.cpp``).

        Args:
            dense: Per input, whether a dense tensor is already in its dim order
                (the contiguous one), so that a call may pass it as it is.
            tensor_type: The tensor type it takes (``torch.Tensor``), exactly.
            strided: The layout of a dense tensor (``torch.strided``).
            empty_strided: What makes an output tensor (``torch.empty_strided``).
            dtypes: The tensor dtype of each ExecuTorch ScalarType code.

        Raises:
            BackendUnavailableError: The extension was not built.
        """
        try:
            from ov_runtime.native import _method_calls
        except ImportError as error:
            raise BackendUnavailableError(
                f"the facade's compiled call path is not installed ({error}); reinstall "
                "ov-runtime so that its native part is built (`uv sync --reinstall-package "
                "ov-runtime`)"
            ) from error
        execute = ctypes.cast(self._runner._library.ov_executorch_runner_execute, ctypes.c_void_p)
        assert execute.value is not None  # a function the library exports
        calls = _method_calls.MethodCalls(
            execute.value,
            self._runner._handle,
            self.name,
            ctypes.addressof(self.inputs),
            len(self.inputs),
            ctypes.addressof(self._outputs),
            len(self._outputs),
            list(dense),
            tensor_type,
            strided,
            empty_strided,
            dict(dtypes),
        )
        return CompiledCalls(self, calls)


class CompiledCalls:
    """Runs a :class:`NativeMethod` in compiled code, without the GIL, and copies its outputs out.

    A call whose inputs are described as the last accepted ones needs no check
    beyond that comparison: :meth:`execute` writes each tensor's data pointer
    and runs it. Any other call is not taken (:meth:`execute` returns None):
    the caller checks it, calls :meth:`forget`, writes its inputs, calls
    :meth:`accept` with them and runs it with :meth:`execute_written`.
    Call it from one thread at a time, holding a place in :data:`calls_in_flight`.
    """

    def __init__(self, method: NativeMethod, calls: _method_calls.MethodCalls) -> None:
        self._method = method  # the values the compiled code writes and reads
        self._calls = calls

    def accept(self, values: Sequence[Any]) -> None:
        """Take calls described as ``values`` (inputs checked and written) from now on."""
        self._calls.accept(values)

    def forget(self) -> None:
        """Take no call until the next :meth:`accept`: the method's inputs are being written anew."""
        self._calls.forget()

    def execute(self, values: Sequence[Any]) -> list[Any] | None:
        """The outputs of the method on ``values``, or None when the call is not taken.

        Raises:
            ExecutionError: ExecuTorch or a delegate failed; with the delegate's reason.
        """
        taken = self._calls.run(values)
        return None if taken is None else self._outputs(*taken)

    def execute_written(self) -> list[Any]:
        """The outputs of the method on its inputs as written in :attr:`NativeMethod.inputs`.

        Raises:
            ExecutionError: ExecuTorch or a delegate failed; with the delegate's reason.
        """
        return self._outputs(*self._calls.execute_written())

    def _outputs(self, code: int, outputs: list[Any] | None) -> list[Any]:
        if code or outputs is None:
            raise _failure(f"method {self._method.name!r}", code)
        return outputs
