"""This backend's ``Tester`` for ExecuTorch's backend test harness.

ExecuTorch's harness (``executorch.backends.test.harness.Tester``) runs a model
through stages: export, partition and lower, ``to_executorch``, serialize, and
running the serialized program against the exported one. Each backend swaps in
its own stages; this one lowers with :class:`ov_runtime.OpenvinoPartitioner` and
runs the ``.pte`` through :func:`ov_runtime.load_program`, the path users take.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import torch
from executorch.backends.test.harness import Tester
from executorch.backends.test.harness.stages import (
    Partition,
    Serialize,
    StageType,
    ToEdgeTransformAndLower,
)
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export import ExportedProgram
from torch.utils._pytree import tree_flatten

from ov_runtime import OpenvinoPartitioner, load_program


class RunWithFacade(Serialize):  # type: ignore[misc]
    """Serialize stage whose run loads the ``.pte`` with :func:`ov_runtime.load_program`."""

    def run_artifact(self, inputs: Any) -> tuple[Any, ...]:
        """Run ``forward`` of the serialized program on ``inputs`` (flattened).

        Returns:
            The outputs, as ExecuTorch's bindings return them (a tuple).
        """
        flat, _ = tree_flatten(inputs)
        return tuple(load_program(self.artifact).load_method("forward").execute(flat))


class LowerWithOwnTables(ToEdgeTransformAndLower):  # type: ignore[misc]
    """``ToEdgeTransformAndLower`` that lowers a copy of the exported program with tables of its own.

    ExecuTorch's ``to_edge`` keeps the exported program's constants table, and
    lowering then removes each constant a delegate consumes from it
    (``exir.lowered_backend_module``). The harness later computes its reference
    from the exported program, whose ``module()`` then raises ``KeyError`` for
    that constant (``lifted_tensor_0`` in torchvision's Swin V2). A backend that
    takes constants into its delegates, as this one does, needs the copy;
    XNNPACK passes such constants in as delegate inputs and does not.
    """

    def run(self, artifact: ExportedProgram, inputs: Any = None, **kwargs: Any) -> None:
        """Lower a copy of ``artifact`` whose state dict and constants table are its own."""
        copy = ExportedProgram(
            root=artifact.graph_module,
            graph=artifact.graph,
            graph_signature=artifact.graph_signature,
            state_dict=dict(artifact.state_dict),
            range_constraints=artifact.range_constraints,
            module_call_graph=artifact.module_call_graph,
            constants=dict(artifact.constants),
            verifiers=[artifact.verifier],
        )
        super().run(copy, inputs, **kwargs)


class OvExecutorchTester(Tester):  # type: ignore[misc]
    """ExecuTorch harness ``Tester`` that lowers to this backend (CPU, float32 by default).

    Args:
        module: The model under test.
        example_inputs: Example inputs for the export.
        dynamic_shapes: ``torch.export`` dynamic shapes, if any.
        compile_specs: This backend's compile specs (:func:`ov_runtime.compile_specs`).
    """

    def __init__(
        self,
        module: torch.nn.Module,
        example_inputs: tuple[Any, ...],
        dynamic_shapes: Any = None,
        compile_specs: Sequence[CompileSpec] = (),
    ) -> None:
        specs = list(compile_specs)
        stage_classes = Tester.default_stage_classes() | {
            StageType.PARTITION: functools.partial(
                Partition, partitioner=OpenvinoPartitioner(specs)
            ),
            StageType.TO_EDGE_TRANSFORM_AND_LOWER: functools.partial(
                LowerWithOwnTables,
                default_partitioner_cls=lambda: OpenvinoPartitioner(specs),
            ),
            StageType.SERIALIZE: RunWithFacade,
        }
        super().__init__(
            module=module,
            stage_classes=stage_classes,
            example_inputs=example_inputs,
            dynamic_shapes=dynamic_shapes,
        )
