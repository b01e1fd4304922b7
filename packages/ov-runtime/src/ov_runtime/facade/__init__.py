"""What users call: lower a model, load and run a ``.pte``, inspect a program."""

from ov_runtime.facade.generation import Generation, generate
from ov_runtime.facade.inspection import (
    DelegateReport,
    ProgramReport,
    inspect_program,
    runtime_precisions,
)
from ov_runtime.facade.lowering import LoweredProgram, OpenvinoPartitioner, compile_specs, lower
from ov_runtime.facade.quantization import QuantizedModel, default_quantizer, quantize
from ov_runtime.facade.running import LoadedMethod, LoadedProgram, load_program, run

__all__ = [
    "DelegateReport",
    "Generation",
    "LoadedMethod",
    "LoadedProgram",
    "LoweredProgram",
    "OpenvinoPartitioner",
    "ProgramReport",
    "QuantizedModel",
    "compile_specs",
    "default_quantizer",
    "generate",
    "inspect_program",
    "load_program",
    "lower",
    "quantize",
    "run",
    "runtime_precisions",
]
