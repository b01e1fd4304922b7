"""Types of the compiled per-call path (``native/python/method_calls.cpp``)."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

class MethodCalls:
    def __init__(
        self,
        execute: int,
        runner: int,
        method: str,
        inputs: int,
        num_inputs: int,
        outputs: int,
        num_outputs: int,
        dense: Sequence[bool],
        tensor_type: type,
        strided: object,
        empty_strided: Callable[..., Any],
        dtypes: Mapping[int, object],
    ) -> None: ...
    def accept(self, values: Sequence[Any]) -> None: ...
    def forget(self) -> None: ...
    def run(self, values: Any) -> tuple[int, list[Any] | None] | None: ...
    def execute_written(self) -> tuple[int, list[Any] | None]: ...
