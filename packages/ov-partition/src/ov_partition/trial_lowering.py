"""Trial lowering: convert proposed partitions before tagging them, to learn which node OpenVINO refuses.

OpenVINO's PyTorch frontend declares an op supported by its name, yet may
refuse a node for its arguments ("Only sum and mean mode supported" for
``embedding_bag``) or its place in the graph. ExecuTorch calls preprocess only
after the partitioner returns, and a refusal then aborts the whole lowering.
So the partitioner cuts each proposed partition out of a copy of the program
the way ExecuTorch does and hands it to the backend's own conversion; a
failure names the node, which then stays on the CPU.

A backend class may offer ``convert(edge_program, compile_specs)``: every step
of its ``preprocess`` that can refuse a partition, without serializing the
result (``ov_convert``'s backend does, and keeps the model for its preprocess
of the same partition). The trial calls it when it is there, so a trial costs
no payload; otherwise it calls ``preprocess``.

ExecuTorch hands the partitioner fake weights. The trial converts with the
real ones where the caller has them (the partitioner notes the weights of the
program its ``ops_to_not_decompose`` sees), and with zeros elsewhere: a
conversion's success does not depend on their values.
"""

from __future__ import annotations

import copy
import logging
import mmap
import operator
import re
from collections.abc import Collection, Mapping, Sequence
from typing import cast

import torch
from executorch.exir.backend.backend_details import BackendDetails
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.utils import tag_constant_data
from executorch.exir.lowered_backend_module import (
    create_exported_program_from_submodule,
    create_submodule_from_nodes,
)
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram

from ov_partition.mutable_buffers import tag_mutated_buffers
from ov_spec import BACKEND_ID

logger = logging.getLogger(__name__)

# The frontend prefixes the friendly name of what it builds for an FX node with
# the node's name: "aten__embedding_bag_default/aten._embedding_bag.default".
_NODE_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)/")
# Lines of a frontend report that say where, not what.
_BOILERPLATE = re.compile(
    r"^(Check '.*' failed at|FrontEnd API failed with|Exception happened during|Model wasn't|"
    r"Failed operations detailed log|Summary:|-- Conversion is failed for|-- \S+ with a message:)"
)
MESSAGE_LIMIT = 400
"""Most characters of the converter's message kept as a node's reason."""
UNTOUCHED_ZEROS_FROM = 1 << 20
"""Bytes from which a trial's zero weights are a mapping of their own."""


def registered_backend() -> type[BackendDetails] | None:
    """Return the ``BackendDetails`` subclass named ``ov_spec.BACKEND_ID``, or ``None`` if none is imported.

    This is how ExecuTorch's ``to_backend`` finds the backend to call
    (a direct subclass whose class name is the backend id), so the trial runs the
    very preprocess that lowering runs next.
    """
    for backend in BackendDetails.__subclasses__():
        if backend.__name__ == BACKEND_ID:
            return cast("type[BackendDetails]", backend)
    return None


def _untouched_zeros(shape: torch.Size, dtype: torch.dtype) -> torch.Tensor:
    """Zeros of ``shape`` and ``dtype`` that take no memory until written.

    A private anonymous mapping reads as zeros, all from the kernel's one zero
    page; ``torch.zeros`` would write every byte. The frontend shares the memory
    of constants rather than copying it, so a trial conversion of a model
    reads its weights and writes none. Tensors under a page's worth of
    mappings are not worth one and come from ``torch.zeros``.
    """
    size = shape.numel() * dtype.itemsize
    if size < UNTOUCHED_ZEROS_FROM:
        return torch.zeros(shape, dtype=dtype)
    mapping = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return torch.frombuffer(mapping, dtype=dtype).view(shape)  # the tensor keeps the mapping


def _real_value(fake: FakeTensor, known: torch.Tensor | None) -> torch.Tensor:
    """The value of weight ``fake``: ``known`` (shared, not copied), or the constant it carries, or zeros.

    ``known`` counts when it has the fake's shape and dtype. PyTorch's fake
    tensors carry the value of the small constants it propagates
    (``FakeTensor.constant``), such as the scalars ExecuTorch lifts into
    tensors while it makes the edge program, after the partitioner last saw
    real weights.
    """
    for value in (known, fake.constant):
        if not isinstance(value, torch.Tensor) or isinstance(value, FakeTensor):
            continue
        if value.shape == fake.shape and value.dtype == fake.dtype:
            return value
    return _untouched_zeros(fake.shape, fake.dtype)


def _materialized(program: ExportedProgram, weights: Mapping[str, torch.Tensor]) -> ExportedProgram:
    """Copy ``program`` with a graph of its own; fake weights become real ones, or zeros.

    ExecuTorch hands the partitioner a program whose state dict holds
    ``FakeTensor``s (``get_fake_program``). Conversion needs real constants
    (:func:`_real_value`); their values do not decide whether a node
    converts, so where none is known, zeros that take no memory
    (:func:`_untouched_zeros`) stand in, and a trial costs little beside the
    program however large its weights are.
    """
    state_dict: dict[str, torch.Tensor] = {}
    for key, value in program.state_dict.items():
        if isinstance(value, FakeTensor):
            real = _real_value(value, weights.get(key))
            value = (
                torch.nn.Parameter(real, False) if isinstance(value, torch.nn.Parameter) else real
            )
        state_dict[key] = value
    graph_module = copy.deepcopy(program.graph_module)
    return ExportedProgram(
        root=graph_module,
        graph=graph_module.graph,
        graph_signature=copy.deepcopy(program.graph_signature),
        state_dict=state_dict,
        range_constraints=copy.deepcopy(program.range_constraints),
        module_call_graph=copy.deepcopy(program.module_call_graph),
        # A table of its own: lowering a partition may take its constants out.
        constants=dict(program.constants),
        verifiers=[program.verifier],
    )


def trial_lower(
    program: ExportedProgram,
    partitions: Sequence[Collection[str]],
    compile_specs: list[CompileSpec],
    backend: type[BackendDetails],
    weights: Mapping[str, torch.Tensor] | None = None,
) -> dict[int, Exception]:
    """Lower each partition of ``program`` alone with ``backend``; return the errors by partition index.

    Args:
        program: The edge-dialect program the partitioner was given (left as it is).
        partitions: The names of each partition's call_function nodes, disjoint.
        compile_specs: The compile specs the delegates get.
        backend: The ``BackendDetails`` class lowering calls (:func:`registered_backend`).
        weights: Real values of the program's fake weights, by state-dict name;
            the others are converted as zeros.

    Each partition is cut out as ExecuTorch's ``to_backend`` cuts it
    (``create_submodule_from_nodes``, ``create_exported_program_from_submodule``)
    from a copy of the program with real weights (:func:`_materialized`), and handed to
    ``backend.convert`` if the backend has one, else to ``backend.preprocess``.
    Any exception it raises is the partition's error.
    """
    convert = getattr(backend, "convert", backend.preprocess)
    owner = _materialized(program, weights or {})
    graph_module = owner.graph_module
    nodes = {node.name: node for node in graph_module.graph.nodes}
    for index, names in enumerate(partitions):
        for name in names:
            nodes[name].meta["delegation_tag"] = f"trial_{index}"
    tag_constant_data(owner)
    tag_mutated_buffers(owner)
    errors: dict[int, Exception] = {}
    for index in range(len(partitions)):
        tag = f"trial_{index}"
        node_list = [
            node for node in graph_module.graph.nodes if node.meta.get("delegation_tag") == tag
        ]
        try:
            # The replace hook keeps the copy's signature naming the nodes that
            # replace its outputs, as ExecuTorch's own lowering does.
            with graph_module._set_replace_hook(owner.graph_signature.get_replace_hook()):
                submodule, call_node = create_submodule_from_nodes(graph_module, node_list, tag)
            submodule.graph.output_node().meta = graph_module.graph.output_node().meta
            partition, _, _ = create_exported_program_from_submodule(
                submodule, owner, tag, call_node, False
            )
            convert(partition, compile_specs)
        except Exception as error:  # any refusal leaves the partition to be split
            errors[index] = error
    return errors


def _prefix(partition: Sequence[torch.fx.Node], length: int) -> list[str]:
    """The first ``length`` nodes of ``partition`` and the ``getitem`` nodes that unpack them.

    A prefix that ends at a node of several results (``max_pool2d_with_indices``)
    without its ``getitem`` nodes would output the tuple itself, which no
    converter takes, and blame that node for it.
    """
    names = [node.name for node in partition[:length]]
    taken = set(names)
    unpacked = [
        node.name
        for node in partition[length:]
        if node.target is operator.getitem and getattr(node.args[0], "name", None) in taken
    ]
    return names + unpacked


def bisect_refusal(
    program: ExportedProgram,
    partition: Sequence[torch.fx.Node],
    error: Exception,
    compile_specs: list[CompileSpec],
    backend: type[BackendDetails],
) -> tuple[torch.fx.Node, Exception]:
    """Find the node whose addition makes a prefix of ``partition`` fail, for a report that names none.

    ``partition`` (in graph order) failed as a whole with ``error``. A prefix of a
    partition in graph order is a valid partition too (a path between two of
    its nodes cannot leave it), so a binary search over prefixes finds the
    longest one that converts in about ``log2(len(partition))`` trial lowerings.
    Each prefix takes the ``getitem`` nodes of its multi-result nodes along.
    Returns the node just past it and the error of the shortest failing prefix.
    """
    converts, fails = 0, len(partition)
    while fails - converts > 1:
        middle = (converts + fails) // 2
        prefix_error = trial_lower(
            program, [_prefix(partition, middle)], compile_specs, backend
        ).get(0)
        if prefix_error is None:
            converts = middle
        else:
            fails, error = middle, prefix_error
    return partition[fails - 1], error


def refused_node(error: Exception, partition: Sequence[torch.fx.Node]) -> torch.fx.Node | None:
    """Return the first node of ``partition`` (in graph order) that the converter's message names.

    OpenVINO's PyTorch frontend reports each failed operation under the
    friendly name it gave it, which starts with the FX node's name and a slash.
    Nodes that failed only because an earlier one did come later in the graph.
    """
    named = set(_NODE_NAME.findall(str(error)))
    return next((node for node in partition if node.name in named), None)


def converter_message(error: Exception, node: torch.fx.Node | None) -> str:
    """Return the part of ``error``'s message that says why ``node`` (or its partition) did not convert."""
    text = str(error)
    if node is not None and (start := text.find(f"{node.name}/")) >= 0:
        block = text[start:].split("\n--", 1)[0].split("\nSummary:", 1)[0]
        lines = [line.strip() for line in block.splitlines()[1:]]
        useful = [line for line in lines if line and not _BOILERPLATE.match(line)]
        if useful:
            text = " ".join(useful)
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."
