"""What users call: lower a model, load and run a ``.pte``, inspect a program.

Each name loads its module on first use, so running a program imports
neither ExecuTorch's compiler nor OpenVINO's Python package, which lowering
and inspecting need (ExecuTorch's ``executorch.exir`` alone takes about 15 s
to import on 2 cores).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ov_runtime.facade.generation import Generation, generate
    from ov_runtime.facade.inspection import (
        DelegateReport,
        ProgramReport,
        inspect_program,
        runtime_precisions,
    )
    from ov_runtime.facade.lowering import (
        LoweredProgram,
        OpenvinoPartitioner,
        compile_specs,
        lower,
    )
    from ov_runtime.facade.profiling import LayerTime, Profile, profile_program, read_etdump
    from ov_runtime.facade.quantization import QuantizedModel, default_quantizer, quantize
    from ov_runtime.facade.running import LoadedMethod, LoadedProgram, load_program, run

_MODULES = {
    "ov_runtime.facade.generation": ("Generation", "generate"),
    "ov_runtime.facade.inspection": (
        "DelegateReport",
        "ProgramReport",
        "inspect_program",
        "runtime_precisions",
    ),
    "ov_runtime.facade.lowering": (
        "LoweredProgram",
        "OpenvinoPartitioner",
        "compile_specs",
        "lower",
    ),
    "ov_runtime.facade.profiling": ("LayerTime", "Profile", "profile_program", "read_etdump"),
    "ov_runtime.facade.quantization": ("QuantizedModel", "default_quantizer", "quantize"),
    "ov_runtime.facade.running": ("LoadedMethod", "LoadedProgram", "load_program", "run"),
}
_MODULE_OF = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'ov_runtime.facade' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DelegateReport",
    "Generation",
    "LayerTime",
    "LoadedMethod",
    "LoadedProgram",
    "LoweredProgram",
    "OpenvinoPartitioner",
    "Profile",
    "ProgramReport",
    "QuantizedModel",
    "compile_specs",
    "default_quantizer",
    "generate",
    "inspect_program",
    "load_program",
    "lower",
    "profile_program",
    "quantize",
    "read_etdump",
    "run",
    "runtime_precisions",
]
