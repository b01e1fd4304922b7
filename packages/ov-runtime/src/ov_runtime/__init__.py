"""OpenVINO backend for ExecuTorch: lower a PyTorch model, run the ``.pte`` on OpenVINO.

Example::

    from ov_runtime import lower, run

    lowered = lower(model, (x,))          # torch.export, partition, preprocess
    lowered.save("model.pte")
    outputs = run("model.pte", (x,))      # ExecuTorch runtime, OpenVINO CPU
"""

from ov_convert import ConversionError, OvExecutorchBackend
from ov_partition import OpenvinoPartitioner, compile_specs
from ov_runtime.exceptions import BackendUnavailableError, ExecutionError
from ov_runtime.lowering import LoweredProgram, lower
from ov_runtime.native import compiled_delegates, is_available, load_backend
from ov_runtime.running import load_program, run
from ov_spec import BACKEND_ID, CompileSpecError, OpenvinoOptions

__all__ = [  # noqa: RUF022 - grouped by task
    "BACKEND_ID",
    # lowering
    "LoweredProgram",
    "OpenvinoOptions",
    "OpenvinoPartitioner",
    "OvExecutorchBackend",
    "compile_specs",
    "lower",
    # running
    "compiled_delegates",
    "is_available",
    "load_backend",
    "load_program",
    "run",
    # errors
    "BackendUnavailableError",
    "CompileSpecError",
    "ConversionError",
    "ExecutionError",
]
