"""The ExecuTorch partitioner that tags the nodes OpenVINO runs."""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Sequence
from typing import final

import torch
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
from torch.export import ExportedProgram
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner

from ov_partition.op_support import OpenvinoOperatorSupport
from ov_spec import BACKEND_ID, OpenvinoOptions

logger = logging.getLogger(__name__)


def compile_specs(**options: str | os.PathLike[str] | None) -> list[CompileSpec]:
    """Build the compile spec list for :class:`OpenvinoPartitioner` from keyword arguments.

    Each keyword is a compile spec key of ``ov_spec.OpenvinoOptions`` (``device``,
    ``inference_precision``, ``cache_dir``); ``None`` or ``""`` means the
    key's default, and a path is taken as its string. For example
    ``compile_specs(device="GPU", inference_precision="f16")``.

    Raises:
        CompileSpecError: An unknown key or a value that is not valid; the
            message names the key and what is allowed.
    """
    values = {
        key: "" if value is None else os.fspath(value) if isinstance(value, os.PathLike) else value
        for key, value in options.items()
    }
    entries = OpenvinoOptions.from_mapping(values).to_entries()
    return [CompileSpec(key, value) for key, value in entries]


@final
class OpenvinoPartitioner(Partitioner):  # type: ignore[misc]
    """Delegates every node OpenVINO's PyTorch frontend converts to this project's backend.

    The rest stays on ExecuTorch's CPU kernels; ``rejections`` says why for each
    node after :meth:`partition` ran.

    Args:
        compile_specs: ExecuTorch compile specs (see :mod:`ov_spec`); ``None``
            means the defaults (device ``CPU``). They are validated here, before
            any conversion starts, and handed to preprocess as parsed (the last
            entry of a key, UTF-8 bytes), which resolves them into the payload.
        skip_ops: Op names such as ``aten.nonzero.default`` (edge-dialect
            ``namespace.op.overload``) to keep on ExecuTorch's CPU kernels.

    Raises:
        CompileSpecError: A key is unknown or a value is not valid.
    """

    def __init__(
        self, compile_specs: Sequence[CompileSpec] | None = None, *, skip_ops: Collection[str] = ()
    ) -> None:
        """Validate ``compile_specs`` and build the delegation spec."""
        self.options = OpenvinoOptions.from_compile_specs(compile_specs or [])
        # The parsed specs, as bytes: ExecuTorch serializes only bytes values.
        specs = [CompileSpec(key, value) for key, value in self.options.to_entries()]
        self.delegation_spec = DelegationSpec(BACKEND_ID, specs)
        self.skip_ops = frozenset(skip_ops)
        self.rejections: dict[str, str] = {}

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        """Tag the supported nodes of ``exported_program`` (edge dialect) with one tag per partition."""
        support = OpenvinoOperatorSupport(self.skip_ops)
        partitioner = CapabilityBasedPartitioner(
            exported_program.graph_module, support, allows_single_node_partition=True
        )
        partition_tags: dict[str, DelegationSpec] = {}
        self.rejections = {}
        for partition in partitioner.propose_partitions():
            if not any(isinstance(node.meta.get("val"), torch.Tensor) for node in partition.nodes):
                # Only int computations (sizes, their checks): nothing for OpenVINO to
                # do, and ExecuTorch cannot place such a delegate ahead of its users.
                for node in partition.nodes:
                    self.rejections[node.name] = "a partition without tensors is left to the CPU"
                continue
            tag = f"openvino_{partition.id}"
            for node in partition.nodes:
                node.meta["delegation_tag"] = tag
            partition_tags[tag] = self.delegation_spec
        tag_constant_data(exported_program)
        self.rejections.update(support.rejections)
        for name, reason in self.rejections.items():
            logger.info("node %s stays on ExecuTorch's CPU kernels: %s", name, reason)
        return PartitionResult(
            tagged_exported_program=exported_program, partition_tags=partition_tags
        )
