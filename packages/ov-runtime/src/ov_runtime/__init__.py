"""OpenVINO backend for ExecuTorch: lower a PyTorch model, run the ``.pte`` on OpenVINO.

Two parts: :mod:`ov_runtime.native`, the native backend and its thin loader,
and :mod:`ov_runtime.facade` (with the ``ov-executorch`` command in
:mod:`ov_runtime.cli`), what users call. Importing this package registers the
native backend with ExecuTorch's runtime, so a ``.pte`` loaded with
``executorch.runtime`` finds it; the facade's names load on first use, so the
import itself does not pull in PyTorch.

Example::

    from ov_runtime import lower, run

    lowered = lower(model, (x,))          # torch.export, partition, preprocess
    lowered.save("model.pte")
    outputs = run("model.pte", (x,))      # ExecuTorch runtime, OpenVINO CPU
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ov_runtime.exceptions import BackendUnavailableError, ExecutionError
from ov_runtime.native import (
    compiled_delegates,
    int8_products_exact,
    is_available,
    load_backend,
    register_at_import,
)
from ov_spec import BACKEND_ID, CompileSpecError, OpenvinoOptions

if TYPE_CHECKING:
    from ov_convert import ConversionError, OvExecutorchBackend
    from ov_partition import OpenvinoPartitioner, compile_specs
    from ov_runtime.facade import (
        DelegateReport,
        Generation,
        LoadedMethod,
        LoadedProgram,
        LoweredProgram,
        ProgramReport,
        QuantizedModel,
        default_quantizer,
        generate,
        inspect_program,
        load_program,
        lower,
        profile_program,
        quantize,
        read_etdump,
        run,
        runtime_precisions,
    )

register_at_import()

# Names that need PyTorch, ExecuTorch or OpenVINO's Python package, by module.
# The facade imports ov_convert with the partitioner: ExecuTorch finds
# preprocess by the name of a BackendDetails subclass that has been imported.
_LAZY = {
    "ConversionError": "ov_convert",
    "OvExecutorchBackend": "ov_convert",
    "OpenvinoPartitioner": "ov_runtime.facade",
    "compile_specs": "ov_runtime.facade",
    "DelegateReport": "ov_runtime.facade",
    "Generation": "ov_runtime.facade",
    "generate": "ov_runtime.facade",
    "LoadedMethod": "ov_runtime.facade",
    "LoadedProgram": "ov_runtime.facade",
    "LoweredProgram": "ov_runtime.facade",
    "ProgramReport": "ov_runtime.facade",
    "QuantizedModel": "ov_runtime.facade",
    "quantize": "ov_runtime.facade",
    "default_quantizer": "ov_runtime.facade",
    "inspect_program": "ov_runtime.facade",
    "profile_program": "ov_runtime.facade",
    "read_etdump": "ov_runtime.facade",
    "load_program": "ov_runtime.facade",
    "lower": "ov_runtime.facade",
    "run": "ov_runtime.facade",
    "runtime_precisions": "ov_runtime.facade",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ov_runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [  # noqa: RUF022 - grouped by task
    "BACKEND_ID",
    # lowering
    "LoweredProgram",
    "OpenvinoOptions",
    "OpenvinoPartitioner",
    "OvExecutorchBackend",
    "compile_specs",
    "lower",
    "QuantizedModel",
    "quantize",
    "default_quantizer",
    # running
    "LoadedMethod",
    "LoadedProgram",
    "compiled_delegates",
    "int8_products_exact",
    "is_available",
    "load_backend",
    "load_program",
    "run",
    "Generation",
    "generate",
    # inspecting
    "DelegateReport",
    "ProgramReport",
    "inspect_program",
    "runtime_precisions",
    "profile_program",
    "read_etdump",
    # errors
    "BackendUnavailableError",
    "CompileSpecError",
    "ConversionError",
    "ExecutionError",
]
