"""The programs the payload fuzzer mutates, each with one delegate, and the calls it makes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from ov_tests.models import Function

Calls = tuple[tuple[torch.Tensor, ...], ...]


class _Static(torch.nn.Module):
    """Weights, a reduction and a comparison: every section matters."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.linear(x))
        return y, (y.sum(dim=1) > 0.5)


class _Dynamic(torch.nn.Module):
    """A dynamic batch: its outputs change shape from call to call."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x)) * 2


def _pass_through(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Outputs the model does not compute beside ones it does: signature ``T/CTTC``."""
    y = x * 2
    return x.transpose(0, 0), x + 1, y, y.transpose(1, 1)


def _rows(count: int, seed: int) -> torch.Tensor:
    return torch.randn(count, 8, generator=torch.Generator().manual_seed(seed))


@dataclass(frozen=True)
class FuzzProgram:
    """A program to mutate.

    Attributes:
        name: ``static``, ``dynamic``, ``pass_through`` or ``blob``.
        lower: Lowers it; returns the ``.pte`` bytes. Each has one delegate.
        calls: Inputs of the calls made in turn on one loaded method.
    """

    name: str
    lower: Callable[[], bytes]
    calls: Calls


def _lowered(
    model: torch.nn.Module, example: torch.Tensor, *, dynamic: bool = False, **specs: str
) -> Callable[[], bytes]:
    def lower() -> bytes:
        from ov_runtime import compile_specs
        from ov_runtime import lower as lower_program

        batch = {"x": {0: torch.export.Dim("batch", min=1, max=16)}} if dynamic else None
        # Every mutation compiles: nothing comes from OpenVINO's model cache.
        options = compile_specs(cache_dir="none", **specs)
        return lower_program(model, (example,), options, dynamic_shapes=batch).buffer

    return lower


def programs() -> dict[str, FuzzProgram]:
    """The four programs, by name."""
    return {
        program.name: program
        for program in (
            FuzzProgram(
                "static", _lowered(_Static(), _rows(3, 0)), ((_rows(3, 0),), (_rows(3, 1),))
            ),
            FuzzProgram(
                "dynamic",
                _lowered(_Dynamic(), _rows(2, 0), dynamic=True),
                ((_rows(3, 2),), (_rows(7, 3),), (_rows(1, 4),)),
            ),
            FuzzProgram(
                "pass_through",
                _lowered(Function(_pass_through), _rows(3, 0)),
                ((_rows(3, 5),), (_rows(3, 6),)),
            ),
            FuzzProgram(
                "blob",
                _lowered(_Static(), _rows(3, 0), compiled_blob="true"),
                ((_rows(3, 7),), (_rows(3, 8),)),
            ),
        )
    }
