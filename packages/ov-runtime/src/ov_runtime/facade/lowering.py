"""Lower a PyTorch model to an ExecuTorch program that runs on OpenVINO."""

from __future__ import annotations

import operator
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from executorch.devtools.backend_debug import get_delegation_info
from executorch.exir import (
    EdgeCompileConfig,
    EdgeProgramManager,
    ExecutorchProgramManager,
    to_edge_transform_and_lower,
)
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.delegate import executorch_call_delegate

from ov_partition import OpenvinoPartitioner


@dataclass(frozen=True)
class LoweredProgram:
    """A program lowered with this backend.

    Attributes:
        program: ExecuTorch's program manager; ``program.buffer`` is the ``.pte``.
        delegated_nodes: Edge-dialect nodes inside delegates of this backend.
        cpu_nodes: Edge-dialect nodes left to ExecuTorch's CPU kernels.
        rejections: For each node left on the CPU by the partitioner, the reason.
    """

    program: ExecutorchProgramManager
    delegated_nodes: int
    cpu_nodes: int
    rejections: Mapping[str, str]

    @property
    def buffer(self) -> bytes:
        """The serialized ``.pte``."""
        return bytes(self.program.buffer)

    def save(self, path: str) -> None:
        """Write the ``.pte`` to ``path``."""
        with open(path, "wb") as file:
            self.program.write_to_file(file)


def _is_delegate_plumbing(node: torch.fx.Node) -> bool:
    """The call of a delegate, and the getitems that unpack its outputs."""
    if node.target is executorch_call_delegate:
        return True
    source = node.args[0] if node.target is operator.getitem and node.args else None
    return isinstance(source, torch.fx.Node) and source.target is executorch_call_delegate


def _cpu_nodes(graph_module: torch.fx.GraphModule) -> int:
    return sum(
        node.op == "call_function" and not _is_delegate_plumbing(node)
        for node in graph_module.graph.nodes
    )


def lower(
    model: torch.nn.Module | torch.export.ExportedProgram,
    example_inputs: Sequence[Any] = (),
    compile_specs: Sequence[CompileSpec] | None = None,
    *,
    dynamic_shapes: Any = None,
    skip_ops: Collection[str] = (),
    compile_config: EdgeCompileConfig | None = None,
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

    Raises:
        CompileSpecError: A compile spec is not valid (before any conversion).
        ConversionError: OpenVINO could not convert a partition.
    """
    partitioner = OpenvinoPartitioner(compile_specs, skip_ops=skip_ops)
    if isinstance(model, torch.export.ExportedProgram):
        exported = model
    else:
        exported = torch.export.export(model, tuple(example_inputs), dynamic_shapes=dynamic_shapes)
    edge: EdgeProgramManager = to_edge_transform_and_lower(
        exported, partitioner=[partitioner], compile_config=compile_config
    )
    graph_module = edge.exported_program().graph_module
    return LoweredProgram(
        program=edge.to_executorch(),
        delegated_nodes=get_delegation_info(graph_module).num_delegated_nodes,
        cpu_nodes=_cpu_nodes(graph_module),
        rejections=dict(partitioner.rejections),
    )
