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
                ToEdgeTransformAndLower,
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
