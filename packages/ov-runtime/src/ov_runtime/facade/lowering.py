"""Lower a PyTorch model to an ExecuTorch program that runs on OpenVINO."""

from __future__ import annotations

import ctypes
import operator
import sys
import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from executorch.devtools.backend_debug import get_delegation_info
from executorch.exir import (
    EdgeCompileConfig,
    EdgeProgramManager,
    ExecutorchBackendConfig,
    ExecutorchProgramManager,
    to_edge_transform_and_lower,
)
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.delegate import executorch_call_delegate
from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

# ov_convert defines OvExecutorchBackend, the BackendDetails that ExecuTorch
# looks up by name when the partitioner's tags are lowered: it must be imported.
from ov_convert import OvExecutorchBackend
from ov_partition import OpenvinoPartitioner, compile_specs

__all__ = ["LoweredProgram", "OpenvinoPartitioner", "OvExecutorchBackend", "compile_specs", "lower"]


@dataclass(frozen=True)
class LoweredProgram:
    """A program lowered with this backend.

    Attributes:
        program: ExecuTorch's program manager; ``program.buffer`` is the ``.pte``.
        delegated_nodes: Operations inside delegates of this backend.
        cpu_nodes: Operations the program runs on ExecuTorch's CPU kernels.
        rejections: For each of those, by node name, why it is not delegated.
    """

    program: ExecutorchProgramManager
    delegated_nodes: int
    cpu_nodes: int
    rejections: Mapping[str, str]

    @property
    def buffer(self) -> bytes:
        """The serialized ``.pte``."""
        return bytes(self.program.buffer)

    def save(self, path: str | Path) -> None:
        """Write the ``.pte`` to ``path``, and beside it each data file (``.ptd``) the program has.

        A program has data files when its constants were tagged by ExecuTorch's
        external-constants pass (its delegates' weights then live there;
        ``load_program(..., data_path=...)`` takes them back).
        """
        with open(path, "wb") as file:
            self.program.write_to_file(file)
        if self.program._tensor_data:  # ExecuTorch's own check, which its writer asserts
            self.program.write_tensor_data_to_file(str(Path(path).parent))


def _is_delegate_plumbing(node: torch.fx.Node) -> bool:
    """The call of a delegate, and the getitems that unpack its outputs."""
    if node.target is executorch_call_delegate:
        return True
    source = node.args[0] if node.target is operator.getitem and node.args else None
    return isinstance(source, torch.fx.Node) and source.target is executorch_call_delegate


def _cpu_operators(graph_module: torch.fx.GraphModule) -> list[str]:
    """The names of the nodes ExecuTorch's kernels run: neither delegate plumbing nor memory planning."""
    return [
        node.name
        for node in graph_module.graph.nodes
        if node.op == "call_function"
        and not _is_delegate_plumbing(node)
        and getattr(node.target, "__module__", "") != "executorch.exir.memory"
    ]


def _delegated_operators(graph_module: torch.fx.GraphModule) -> int:
    """The operations inside delegates (the getitems that unpack tuples inside are not counted)."""
    counts = get_delegation_info(graph_module).delegation_by_operator
    return sum(count.delegated for name, count in counts.items() if name != "getitem")


def lower(
    model: torch.nn.Module | torch.export.ExportedProgram,
    example_inputs: Sequence[Any] = (),
    compile_specs: Sequence[CompileSpec] | None = None,
    *,
    dynamic_shapes: Any = None,
    skip_ops: Collection[str] = (),
    compile_config: EdgeCompileConfig | None = None,
    constant_methods: Mapping[str, Any] | None = None,
) -> LoweredProgram:
    """Export (if needed), partition, lower and serialize ``model`` for this backend.

    Args:
        model: An ``nn.Module`` (exported here with ``torch.export.export``) or
            an ``ExportedProgram``.
        example_inputs: Example inputs for the export; ignored for an ``ExportedProgram``.
        compile_specs: Compile specs of the delegates (see ``ov_spec``); default: device CPU.
        dynamic_shapes: Passed to ``torch.export.export``.
        skip_ops: Op names (``aten.nonzero.default``) to keep on ExecuTorch's CPU kernels.
        compile_config: ExecuTorch's ``EdgeCompileConfig``; a program with
            runtime asserts on data-dependent sizes (``torch._check``) needs
            ``EdgeCompileConfig(_check_ir_validity=False)``.
        constant_methods: Methods that return a constant, by name, as
            ExecuTorch's LLM export adds them (``{"get_max_seq_len": 128}``,
            which :func:`ov_runtime.generate` reads).

    Buffers the program mutates (an LLM's KV cache, a counter) keep their
    initial values in the ``.pte``, as eager starts from them; ExecuTorch
    would otherwise store their shapes alone and start from whatever memory
    holds (``InitializedMutableBufferPass``).

    Raises:
        CompileSpecError: A compile spec is not valid (before any conversion).
        ConversionError: OpenVINO could not convert a partition.
    """
    partitioner = OpenvinoPartitioner(compile_specs, skip_ops=skip_ops)
    if isinstance(model, torch.export.ExportedProgram):
        exported = _own_constants(model)
    else:
        exported = torch.export.export(model, tuple(example_inputs), dynamic_shapes=dynamic_shapes)
    edge: EdgeProgramManager = to_edge_transform_and_lower(
        exported,
        partitioner=[partitioner],
        compile_config=compile_config,
        constant_methods=dict(constant_methods) if constant_methods else None,
    )
    # ExecuTorch serializes a mutated buffer's shape alone unless told to keep
    # its value; eager starts from the value (a zeroed KV cache, a counter).
    keep_values = InitializedMutableBufferPass([""])  # every name contains ""
    with warnings.catch_warnings():  # ExecuTorch warns of the loss whether or not it happens
        warnings.filterwarnings("ignore", "Mutation on a buffer in the model is detected")
        program = edge.to_executorch(ExecutorchBackendConfig(passes=[keep_values]))
    _return_freed_memory()
    # The reasons of nodes ExecuTorch removed after partitioning (runtime
    # asserts, symbolic comparisons) are left out: they run nowhere.
    cpu = _cpu_operators(program.exported_program().graph_module)
    return LoweredProgram(
        program=program,
        delegated_nodes=_delegated_operators(edge.exported_program().graph_module),
        cpu_nodes=len(cpu),
        rejections={
            name: partitioner.rejections.get(name, "added by ExecuTorch after partitioning")
            for name in cpu
        },
    )


def _own_constants(program: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """``program`` with a constants table of its own (the graph, weights and the rest shared).

    ExecuTorch's lowering takes the constants it moves into delegates out of
    the table, which the programs it derives share with the one it was given:
    lowering the caller's program again, or converting it with OpenVINO, would
    then miss them (``KeyError`` while unlifting).
    """
    return torch.export.ExportedProgram(
        root=program.graph_module,
        graph=program.graph,
        graph_signature=program.graph_signature,
        state_dict=program.state_dict,
        range_constraints=program.range_constraints,
        module_call_graph=program.module_call_graph,
        example_inputs=program.example_inputs,
        constants=dict(program.constants),
        verifiers=[program.verifier],
    )


def _return_freed_memory() -> bool:
    """Give the heap memory freed so far back to the operating system; return whether it was tried.

    ExecuTorch's ``to_backend`` hands each partition's preprocess a deep copy
    of the partition's program, weights included, and frees it afterwards.
    glibc keeps freed heap memory for reuse, so the process would hold about
    the weights' size again while it serializes the program (``.buffer``),
    which needs the payloads' size once more. ``malloc_trim(0)`` returns it.
    Elsewhere than on Linux with glibc, nothing is done.
    """
    if not sys.platform.startswith("linux"):
        return False
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if trim is None:  # not glibc
        return False
    trim(0)
    return True
