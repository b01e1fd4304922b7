"""Test helpers, model suite and benchmarks of the OpenVINO backend for ExecuTorch.

The pipeline helpers import PyTorch and ExecuTorch when first used, so that
``ov-executorch bench --help`` (``ov_tests.benchmarks.bench_command``) answers at once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ov_tests.pipeline import Outcome, assert_same, check_program, cpu_operators, delegate_ids

__all__ = ["Outcome", "assert_same", "check_program", "cpu_operators", "delegate_ids"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'ov_tests' has no attribute {name!r}")
    value = getattr(importlib.import_module("ov_tests.pipeline"), name)
    globals()[name] = value
    return value
