"""The ExecuTorch partitioner that tags the nodes OpenVINO runs."""

from __future__ import annotations

import logging
import operator
import os
import weakref
from collections.abc import Callable, Collection, Sequence
from typing import final

# Registers the out variants of quantized_decomposed ops, which to_executorch
# needs for a quantize or dequantize the partitioner leaves on ExecuTorch's CPU
# (dynamic quantization's choose_qparams and its pairs): users of ExecuTorch's
# own API import this module, not the facade.
import executorch.kernels.quantized  # noqa: F401
import torch
from executorch.exir.backend.backend_details import BackendDetails
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner

from ov_partition.cache_attention import kept_whole
from ov_partition.cpu_kernels import warn_of_cpu_kernels
from ov_partition.mutable_buffers import tag_mutated_buffers
from ov_partition.op_support import OpenvinoOperatorSupport, branches, overload
from ov_partition.pre_decomposition import decompose_for_lowering
from ov_partition.ranges.narrowing import narrowed_nodes
from ov_partition.trial_lowering import (
    bisect_refusal,
    converter_message,
    refused_node,
    registered_backend,
    trial_lower,
)
from ov_spec import BACKEND_ID, OpenvinoOptions

logger = logging.getLogger(__name__)

MAX_TRIAL_ROUNDS = 8
"""Rounds of trial lowering that leave one refused node per failing partition on the CPU."""


def compile_specs(**options: str | bool | int | os.PathLike[str] | None) -> list[CompileSpec]:
    """Build the compile spec list for :class:`OpenvinoPartitioner` from keyword arguments.

    Each keyword is a compile spec key of ``ov_spec.OpenvinoOptions`` (``device``,
    ``inference_precision``, ``cache_dir``); ``None`` or ``""`` means the
    key's default. A value is its text, or the key's type: a bool for a
    switch, a whole number for a count, a path for ``cache_dir``. For example
    ``compile_specs(device="GPU", inference_precision="f16", compiled_blob=True)``.

    Raises:
        CompileSpecError: An unknown key or a value that is not valid; the
            message names the key and what is allowed.
    """
    entries = OpenvinoOptions.from_mapping(options).to_entries()
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
        # The weights of the programs ops_to_not_decompose saw, for the trial
        # conversions; weakly, so that the partitioner keeps no program alive.
        self._weights: weakref.WeakValueDictionary[str, torch.Tensor] = (
            weakref.WeakValueDictionary()
        )

    def ops_to_not_decompose(
        self, ep: ExportedProgram
    ) -> tuple[list[torch._ops.OpOverload], Callable[[torch.fx.Node], bool] | None]:
        """Keep whole the ops the backend's preprocess rewrites itself, and attention over a KV cache.

        The registered backend declares the first (``ops_kept_whole``; none
        while no backend is imported): quantization-aware training's
        fake-quant ops, which ``to_edge_transform_and_lower`` would otherwise
        decompose into ``*_cachemask`` ops ExecuTorch's edge checker rejects.
        Preprocess turns each into a quantize/dequantize pair, which OpenVINO
        converts to FakeQuantize. The second are the cache writes and the
        attention of an LLM's KV cache, which OpenVINO runs as its own
        attention, where ``ep`` holds no other attention
        (:mod:`ov_partition.cache_attention`).

        ``to_edge_transform_and_lower`` calls this with the real program, the
        last time the partitioner sees its weights before it gets fakes in
        their place. It notes them so that :meth:`partition` converts with
        them, and preprocess can reuse that conversion (``ov_convert.trial_models``).
        """
        for name, value in [*ep.state_dict.items(), *ep.constants.items()]:
            if isinstance(value, torch.Tensor) and not isinstance(value, FakeTensor):
                self._weights[name] = value
        names = sorted(
            {
                *getattr(registered_backend(), "ops_kept_whole", ()),
                *kept_whole(ep.graph, self.skip_ops),
            }
        )
        return [
            op for name in names if isinstance(op := overload(name), torch._ops.OpOverload)
        ], None

    def transform_for_pre_decomposition(self, exported_program: ExportedProgram) -> ExportedProgram:
        """Apply this backend's decompositions to the ATen program, before ExecuTorch's own.

        ``to_edge_transform_and_lower`` calls this hook first. It decomposes
        ``round.decimals``, ``exp2``, ``cumprod`` and ``linalg_solve_triangular``, which
        ExecuTorch's edge checker refuses, integer ``remainder``, whose ExecuTorch 1.5.1
        kernel takes the dividend's sign, and ``nonzero`` of a non-bool
        tensor into ``nonzero(x != 0)``, so that ``nonzero`` is delegated
        (:mod:`ov_partition.pre_decomposition`).
        """
        return decompose_for_lowering(exported_program)

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        """Tag the nodes of ``exported_program`` (edge dialect) that OpenVINO converts, one tag per partition.

        Each proposed partition is first converted on trial with the backend's own
        conversion (:mod:`ov_partition.trial_lowering`). When OpenVINO's converter
        refuses one, the node its report names stays on the CPU with the
        converter's message as its reason, and the rest is partitioned and tried
        again. When the report names no node of the partition, a bisection over
        its prefixes finds the node from which it fails. After
        ``MAX_TRIAL_ROUNDS`` such rounds, a partition that still fails stays on
        the CPU whole. Lowering therefore never fails on a node the converter
        refuses.

        Integer work that OpenVINO's CPU plugin computes narrower than
        PyTorch stays on the CPU unless its values provably fit
        (:mod:`ov_partition.ranges`; compile spec
        ``allow_int64_narrowing`` delegates int64 work anyway).

        A buffer the program mutates goes with the partition that reads and
        writes it, where it stays as OpenVINO state between calls
        (:func:`ov_partition.mutable_buffers.tag_mutated_buffers`).
        """
        backend = registered_backend()
        if backend is None:
            logger.warning(
                "no %s backend is imported (import OpenvinoPartitioner from ov_runtime, or "
                "import ov_convert): partitions are not converted on trial, and ExecuTorch "
                "finds no backend to preprocess them unless one is imported before",
                BACKEND_ID,
            )
        trial = None if backend is None else (list(self.delegation_spec.compile_specs), backend)
        narrowed = narrowed_nodes(exported_program, int64=not self.options.allow_int64_narrowing)
        refused: dict[str, str] = {}
        converted: set[frozenset[str]] = set()
        support = OpenvinoOperatorSupport(self.skip_ops, refused, narrowed)
        partitions = self._propose(exported_program, support)
        trial_round = 0
        while trial is not None:
            untried = [nodes for nodes in partitions if _names(nodes) not in converted]
            if not untried:
                break
            errors = trial_lower(
                exported_program, [_names(n) for n in untried], *trial, self._weights
            )
            if not errors:
                break
            trial_round += 1
            converted.update(_names(nodes) for i, nodes in enumerate(untried) if i not in errors)
            for index, error in errors.items():
                refused.update(
                    _refusals(exported_program, untried[index], error, trial_round, trial)
                )
            support = OpenvinoOperatorSupport(self.skip_ops, refused, narrowed)
            partitions = self._propose(exported_program, support)

        partition_tags: dict[str, DelegationSpec] = {}
        for index, nodes in enumerate(partitions):
            tag = f"openvino_{index}"
            for node in nodes:
                node.meta["delegation_tag"] = tag
            partition_tags[tag] = self.delegation_spec
        tag_constant_data(exported_program)
        _untag_constants_read_on_the_cpu(exported_program)
        owned = tag_mutated_buffers(exported_program)
        if owned:
            logger.info("buffers kept as OpenVINO state in their delegate: %s", ", ".join(owned))
        self.rejections = {**self.rejections, **support.rejections}
        for name, reason in self.rejections.items():
            logger.info("node %s stays on ExecuTorch's CPU kernels: %s", name, reason)
        warn_of_cpu_kernels(exported_program, self.rejections)
        return PartitionResult(
            tagged_exported_program=exported_program, partition_tags=partition_tags
        )

    def _propose(
        self, exported_program: ExportedProgram, support: OpenvinoOperatorSupport
    ) -> list[list[torch.fx.Node]]:
        """Return the nodes of each partition ``support`` allows, in graph order; record the rest."""
        order = {node: index for index, node in enumerate(exported_program.graph.nodes)}
        partitioner = CapabilityBasedPartitioner(
            exported_program.graph_module, support, allows_single_node_partition=True
        )
        self.rejections = {}
        partitions = []
        for partition in partitioner.propose_partitions():
            # A delegated cond or while_loop takes the graphs it runs along.
            graphs = [get for node in partition.nodes for get, _ in branches(node)]
            nodes = sorted({*partition.nodes, *graphs}, key=order.__getitem__)
            if not any(isinstance(node.meta.get("val"), torch.Tensor) for node in nodes):
                # Only int computations (sizes, their checks): nothing for OpenVINO to
                # do, and ExecuTorch cannot place such a delegate ahead of its users.
                for node in nodes:
                    self.rejections[node.name] = "a partition without tensors is left to the CPU"
                continue
            partitions.append(nodes)
        # The partitioner takes a getitem only with the node whose output it unpacks.
        placed = {node for nodes in partitions for node in nodes}
        for node in exported_program.graph.nodes:
            if node.target is operator.getitem and node not in placed:
                self.rejections.setdefault(
                    node.name, f"unpacks the output of {node.args[0]}, which stays on the CPU"
                )
        return partitions


def _untag_constants_read_on_the_cpu(exported_program: ExportedProgram) -> None:
    """Leave out of its delegate a constant that control flow left on the CPU also reads.

    ExecuTorch's ``tag_constant_data`` gives a constant the tag of its delegated
    users and ignores its untagged ones. ``to_backend`` copies such a constant
    for an untagged op, but not for a ``torch.cond`` or loop on the CPU that
    reads it, and refuses the program (a tagged constant with a user outside
    its delegate). Untagged, the constant stays the program's, and the
    delegate takes it as an input.
    """
    for node in exported_program.graph.nodes:
        tag = node.meta.get("delegation_tag") if node.op == "placeholder" else None
        if tag is not None and any(
            isinstance(user.target, torch._ops.HigherOrderOperator)
            and user.meta.get("delegation_tag") is None
            for user in node.users
        ):
            del node.meta["delegation_tag"]


def _names(nodes: Sequence[torch.fx.Node]) -> frozenset[str]:
    return frozenset(node.name for node in nodes)


def _refusals(
    program: ExportedProgram,
    nodes: Sequence[torch.fx.Node],
    error: Exception,
    trial_round: int,
    trial: tuple[list[CompileSpec], type[BackendDetails]],
) -> dict[str, str]:
    """Return the nodes of a partition that failed trial lowering that stay on the CPU, with why.

    The node the converter's report names, or else the one a bisection over the
    partition's prefixes blames (:func:`bisect_refusal`); past
    ``MAX_TRIAL_ROUNDS``, the whole partition.
    """
    if trial_round > MAX_TRIAL_ROUNDS:
        message = converter_message(error, None)
        logger.warning(
            "OpenVINO could not convert a partition of %d nodes after %d rounds; it stays on "
            "the CPU: %s",
            len(nodes),
            MAX_TRIAL_ROUNDS,
            message,
        )
        return {node.name: f"OpenVINO could not convert its partition: {message}" for node in nodes}
    node = refused_node(error, nodes)
    how = "refused it"
    if node is None:
        node, error = bisect_refusal(program, nodes, error, *trial)
        how = "failed on its partition from it on (found by bisection)"
    message = converter_message(error, node)
    logger.warning(
        "node %s stays on the CPU and the rest is partitioned again (round %d of %d); "
        "OpenVINO's converter %s: %s",
        node.name,
        trial_round,
        MAX_TRIAL_ROUNDS,
        how,
        message,
    )
    return {node.name: f"OpenVINO's converter {how}: {message}"}
