"""``BackendDetails.preprocess`` of the OpenVINO backend."""

from __future__ import annotations

import copy
import logging
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar, final

import openvino as ov
import torch
from executorch.exir._serialize._cord import FileBackedData
from executorch.exir._serialize._named_data_store import NamedDataStore
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.dim_order_utils import get_memory_format
from executorch.exir.passes.dim_order_ops_registry import MemoryFormatOpsMap
from torch.export import ExportedProgram

from ov_convert.compiled_blob import compile_blob
from ov_convert.convert import (
    convert_module,
    input_signature,
    output_signature,
    output_values,
    serialize,
    user_input_values,
)
from ov_convert.extensions import EXTENSION_OPS
from ov_convert.int8_saturation import int8_products_may_saturate
from ov_convert.model_pipeline import finish_model
from ov_convert.named_weights import ALIGNMENT, external_tag, pool_weights
from ov_convert.payload import CACHE_POSITION_ARGUMENTS, Payload
from ov_convert.states import State, lift_states
from ov_convert.trial_models import forget_trial_models, keep_trial_model, take_trial_model
from ov_passes import DEFAULT_PASSES, REWRITES, run_passes
from ov_spec import BACKEND_ID, OpenvinoOptions

logger = logging.getLogger(__name__)


def _prepare(program: ExportedProgram) -> tuple[torch.fx.GraphModule, list[State]]:
    """Return the partition as a graph module with the rewrites the frontend needs, and its states."""
    # Guards check user inputs at the top of a whole program, which a delegate never sees.
    unlifted = program.module(check_guards=False)
    states = lift_states(unlifted, program)
    _revert_dim_order_ops(unlifted)
    run_passes(unlifted, DEFAULT_PASSES)
    return unlifted, states


def _revert_dim_order_ops(module: torch.fx.GraphModule) -> None:
    """Turn ExecuTorch's dim-order ops back into the aten ops the frontend converts.

    The same rewrite as ExecuTorch's ``DimOrderOpsRevertPass`` (``dim_order``
    becomes the ``memory_format`` it names; none given means contiguous), made
    on the nodes in place: that pass retraces the whole graph on fake tensors,
    which took half of preprocess on a 24-layer BERT, branches of control flow included.
    """
    graph_modules = [part for part in module.modules() if isinstance(part, torch.fx.GraphModule)]
    for graph_module in graph_modules:  # control flow's branches too
        for node in graph_module.graph.nodes:
            aten_op = MemoryFormatOpsMap.get(node.target)
            if node.op != "call_function" or aten_op is None:
                continue
            kwargs = dict(node.kwargs)
            dim_order = kwargs.pop("dim_order", list(range(node.meta["val"].dim())))
            kwargs["memory_format"] = get_memory_format(
                None if dim_order is None else list(dim_order)
            )
            node.target, node.kwargs = aten_op, kwargs
        graph_module.recompile()


def _convert(edge_program: ExportedProgram) -> ov.Model:
    """Convert the partition; return the model ready to serialize."""
    inputs, outputs = user_input_values(edge_program), output_values(edge_program)
    module, states = _prepare(edge_program)
    model = convert_module(
        module,
        [*inputs, *(state.initial for state in states)],
        [*outputs, *(state.update for state in states)],
    )
    model = finish_model(model, states, len(inputs), len(outputs))
    logger.debug("converted a partition: %d inputs, %d outputs", len(inputs), len(outputs))
    return model


@final
class OvExecutorchBackend(BackendDetails):  # type: ignore[misc]
    """Turns a partition into the delegate payload: a versioned header plus OpenVINO IR.

    The class name is the backend id (``ov_spec.BACKEND_ID``): ExecuTorch finds a
    ``BackendDetails`` subclass by its name.

    It also declares what its preprocess does beyond OpenVINO's frontend, which
    the partitioner reads from the registered class (``ov_partition``): the
    ops it makes convertible (:attr:`converted_ops`), those ExecuTorch must
    leave whole for it (:attr:`ops_kept_whole`), and the nodes it cannot
    handle (:meth:`refusal`). Each comes from the pass or converter that
    does the work (``ov_passes.REWRITES``, ``ov_convert.extensions``).
    """

    converted_ops: ClassVar[frozenset[str]] = REWRITES.ops | EXTENSION_OPS
    """Op names preprocess converts that OpenVINO's frontend does not convert as they come
    (edge dialect's dim-order ops aside, which every ExecuTorch backend takes)."""
    ops_kept_whole: ClassVar[frozenset[str]] = REWRITES.kept_whole
    """Op names ExecuTorch must not decompose before preprocess sees them (fake-quant ops)."""

    @staticmethod
    def refusal(node: torch.fx.Node) -> str | None:
        """Why preprocess cannot give ``node`` what OpenVINO needs, or None (a pass's declared limit)."""
        return REWRITES.refusal(node)

    @staticmethod
    def convert(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> ov.Model:
        """Do every step of :meth:`preprocess` that can refuse the partition, and return the model.

        The partitioner's trial lowering (``ov_partition.trial_lowering``) calls
        this rather than :meth:`preprocess`: serializing each trial partition
        would cost the memory of its weights twice over, and decides nothing.

        The conversion does not depend on the compile specs, which the
        partitioner has already parsed and checked, so they are not read here.
        The model is kept for preprocess of the same partition, which reuses
        it instead of converting again (:mod:`ov_convert.trial_models`); the
        caller must not change it.

        Raises:
            ConversionError: OpenVINO could not convert the partition.
        """
        model = _convert(edge_program)
        keep_trial_model(edge_program, model)
        return model

    @classmethod
    def copy_exported_program_for_preprocess(
        cls, edge_program: ExportedProgram, compile_specs: list[CompileSpec]
    ) -> ExportedProgram:
        """Copy the partition for preprocess, its weights shared rather than copied.

        ExecuTorch's ``to_backend`` deep-copies each partition before preprocess,
        since a backend may change the program (``BackendDetails``' default).
        Preprocess here changes a copy of the graph and never writes a weight
        (the passes and OpenVINO's frontend read them), so the copy of every
        weight would only double the memory lowering takes.
        """
        tensors = [*edge_program.state_dict.values(), *edge_program.constants.values()]
        shared = {id(value): value for value in tensors if isinstance(value, torch.Tensor)}
        return copy.deepcopy(edge_program, shared)

    @staticmethod
    def preprocess(
        edge_program: ExportedProgram, compile_specs: list[CompileSpec]
    ) -> PreprocessResult:
        """Run the graph passes, convert the partition and return the payload.

        One partition lowered alone: :meth:`preprocess_multimethod` of it, so
        its weights are named data too.

        Raises:
            CompileSpecError: A compile spec is not valid (checked before conversion).
            ConversionError: OpenVINO could not convert the partition, or
                could not compile it for the device to store a compiled blob.
        """
        results = OvExecutorchBackend.preprocess_multimethod(
            {"": [edge_program]}, {"": [compile_specs]}
        )
        return results[""][0]

    @classmethod
    def preprocess_multimethod(
        cls,
        edge_programs: dict[str, list[ExportedProgram]],
        compile_specs: dict[str, list[list[CompileSpec]]],
    ) -> dict[str, list[PreprocessResult]]:
        """Run the graph passes, convert each partition of every method, and return the payloads.

        ExecuTorch's ``to_backend`` hands a backend every partition of every
        method at once here. The compile specs are resolved once per
        partition into the device and the OpenVINO properties its payload
        carries (``ov_spec.OpenvinoOptions``); the runtime applies them as
        they are. Buffers a partition mutates become OpenVINO state
        (:mod:`ov_convert.states`), so a delegate's inputs and outputs are
        its partition's user inputs and outputs alone. With the
        ``compiled_blob`` compile spec, the model is also compiled for the
        device and the exported blob stored beside the IR
        (:mod:`ov_convert.compiled_blob`).

        A partition the partitioner converted on trial with the same values is
        not converted again: its trial's model is taken
        (:mod:`ov_convert.trial_models`).

        The weights of all the partitions are one piece of ExecuTorch named
        data (:mod:`ov_convert.named_weights`), each distinct constant once,
        which every payload names: in the ``.pte``, or in the ``.ptd`` that
        ExecuTorch's external-constants pass tagged the constants for. It
        rides on the first partition's result; ExecuTorch merges the named
        data of all of them into the program.

        Args:
            edge_programs: Each method's partitions, in edge dialect.
            compile_specs: Each partition's compile specs, in the same order.

        Returns:
            Each method's results, in the order of its partitions.

        Raises:
            CompileSpecError: A compile spec is not valid (checked before conversion).
            ConversionError: OpenVINO could not convert a partition, or could
                not compile it for the device to store a compiled blob, or the
                constants name more than one data file.
        """
        partitions = [
            (method, program, OpenvinoOptions.from_compile_specs(specs))
            for method, programs in edge_programs.items()
            for program, specs in zip(programs, compile_specs[method], strict=True)
        ]
        tag = external_tag(program for _, program, _ in partitions)
        # ExecuTorch's FileBackedData owns the pool's file (removed with it) and reads
        # it when the program is written.
        descriptor, name = tempfile.mkstemp(prefix="ov_executorch_weights_", suffix=".bin")
        pool = Path(name)
        try:
            with (
                open(descriptor, "wb") as file,
                tempfile.TemporaryDirectory(prefix="ov_executorch_") as folder,
            ):
                lowered = [
                    _lower(program, options, Path(folder) / str(index))
                    for index, (_, program, options) in enumerate(partitions)
                ]
                irs = [(part.payload.xml, part.weights_path) for part in lowered]
                xmls, named = pool_weights(irs, file)
        except BaseException:
            pool.unlink()
            raise
        finally:
            # Models of partitions that were split or left out hold the weights.
            forget_trial_models()
        store = None
        if named is None:
            pool.unlink()
        else:
            store = NamedDataStore()
            store.add_named_data(named.key, FileBackedData(name, cleanup=True), ALIGNMENT, tag)
        results: dict[str, list[PreprocessResult]] = {method: [] for method in edge_programs}
        for index, ((method, _, _), part, xml) in enumerate(
            zip(partitions, lowered, xmls, strict=True)
        ):
            payload = replace(part.payload, xml=xml, named_weights=named).to_bytes()
            logger.debug(
                "serialized a partition of %r for %s: %d payload bytes",
                method,
                part.payload.device,
                len(payload),
            )
            data = store.get_named_data_store_output() if index == 0 and store else None
            results[method].append(
                PreprocessResult(processed_bytes=payload, data_store_output=data)
            )
        return results


@dataclass(frozen=True)
class _Lowered:
    """A partition converted and serialized: its payload but for the weights, and their file."""

    payload: Payload
    weights_path: Path


def _lower(program: ExportedProgram, options: OpenvinoOptions, folder: Path) -> _Lowered:
    """Convert one partition, or take its trial's model, and save its IR in ``folder`` (made here)."""
    model = take_trial_model(program)
    if model is None:
        model = _convert(program)
    else:
        logger.debug("reused the trial conversion of a partition")
    inputs, outputs = user_input_values(program), output_values(program)
    inputs_signature = input_signature(model, inputs)
    fused = any(letter in inputs_signature for letter in CACHE_POSITION_ARGUMENTS)
    properties = options.properties(fused_kv_cache=fused)
    blob = compile_blob(model, options.device, properties) if options.compiled_blob else None
    folder.mkdir()
    xml, weights_path = serialize(model, folder)
    payload = Payload(
        xml=xml,
        weights=b"",
        device=options.device,
        properties=properties,
        inputs=inputs_signature,
        outputs=output_signature(model, outputs),
        wide_int8_weights=int8_products_may_saturate(model),
        compiled_blob=blob,
    )
    return _Lowered(payload, weights_path)


assert OvExecutorchBackend.__name__ == BACKEND_ID
