"""Convert a partition's graph to an OpenVINO model with OpenVINO's PyTorch frontend."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import openvino as ov
import torch
from executorch.exir.tensor import dim_order_from_stride
from openvino import opset13
from openvino.frontend import FrontEndManager
from openvino.frontend.pytorch.fx_decoder import TorchFXPythonDecoder
from openvino.preprocess import PrePostProcessor
from torch.export import ExportedProgram
from torch.export.graph_signature import OutputKind

from ov_convert.appended_caches import POSITIONS_INPUT
from ov_convert.exceptions import ConversionError
from ov_convert.extensions import conversion_extensions, prepare_for_extensions
from ov_convert.payload import (
    COPIED_ARGUMENT,
    FIRST_POSITION_ARGUMENT,
    POSITIONS_ARGUMENT,
    SCALAR_ARGUMENT,
    TENSOR_ARGUMENT,
)
from ov_spec import DELEGATE_DTYPES

_ELEMENT_TYPES: dict[torch.dtype, ov.Type] = {
    getattr(torch, dtype.torch_name): getattr(ov.Type, dtype.element_type)
    for dtype in DELEGATE_DTYPES
}


def element_type(dtype: torch.dtype, where: str) -> ov.Type:
    """Return OpenVINO's element type for a torch dtype (``ov_spec.DELEGATE_DTYPES``).

    Raises:
        ConversionError: The dtype has no OpenVINO element type; ``where`` names the value.
    """
    try:
        return _ELEMENT_TYPES[dtype]
    except KeyError:
        allowed = ", ".join(str(d) for d in _ELEMENT_TYPES)
        raise ConversionError(f"{where} has dtype {dtype}; the backend takes {allowed}") from None


def _shape(value: object) -> ov.PartialShape:
    """Static dims stay; symbolic dims become dynamic; scalars (ints) are 0-d."""
    if isinstance(value, torch.Tensor):
        return ov.PartialShape([d if isinstance(d, int) else -1 for d in value.shape])
    return ov.PartialShape([])


def _frontend_shape(value: object) -> ov.PartialShape:
    """The shape the frontend converts with: a scalar's rank is left open.

    The frontend's translators (Slice bounds, shapes built from ints)
    unsqueeze an input of unknown rank to the 1-D form OpenVINO's operations
    take; a known rank of 0 would reach Slice and Concat as is and fail.
    """
    return _shape(value) if isinstance(value, torch.Tensor) else ov.PartialShape.dynamic()


def _dtype(value: object) -> torch.dtype:
    if isinstance(value, torch.Tensor):
        return value.dtype
    if isinstance(value, (bool, torch.SymBool)):
        return torch.bool
    if isinstance(value, (float, torch.SymFloat)):
        return torch.float32
    return torch.int64


def _dim_order(value: object) -> tuple[int, ...] | None:
    """The tensor's dim order when it is not the contiguous one (e.g. channels_last), else None.

    The order is ExecuTorch's own (``dim_order_from_stride``), which the program's
    tensors carry; ``Tensor.dim_order`` can order size-1 dims differently.
    """
    if not isinstance(value, torch.Tensor) or value.dim() < 2:
        return None
    order = tuple(int(dim) for dim in dim_order_from_stride(value.stride()))
    return None if order == tuple(range(value.dim())) else order


def _layouts(order: tuple[int, ...]) -> tuple[ov.Layout, ov.Layout]:
    """OpenVINO layouts of the logical (model) and the physical (tensor) dimension order."""
    names = [f"d{dim}" for dim in range(len(order))]
    physical = [names[dim] for dim in order]
    return ov.Layout(f"[{','.join(names)}]"), ov.Layout(f"[{','.join(physical)}]")


def user_input_values(program: ExportedProgram) -> list[object]:
    """Return the example value (``FakeTensor`` or symbolic scalar) of each user input, in order."""
    user_inputs = set(program.graph_signature.user_inputs)
    return [
        node.meta.get("val")
        for node in program.graph.nodes
        if node.op == "placeholder" and node.name in user_inputs
    ]


def output_values(program: ExportedProgram) -> list[object]:
    """Return the example value of each output of ``program`` but buffer mutations, in order.

    A buffer mutation is not an output of the delegate: the buffer stays in
    it as state (``ov_convert.states``), as unlifting (``program.module()``)
    leaves it out of the outputs too.
    """
    output = program.graph.output_node()
    kinds = [spec.kind for spec in program.graph_signature.output_specs]
    return [
        arg.meta.get("val") if isinstance(arg, torch.fx.Node) else arg
        for arg, kind in zip(output.args[0], kinds, strict=True)
        if kind != OutputKind.BUFFER_MUTATION
    ]


def _frontend_convert(
    module: torch.fx.GraphModule, inputs: Sequence[object], dtypes: Sequence[torch.dtype]
) -> ov.Model:
    """Run OpenVINO's PyTorch frontend, with this project's extensions, over ``module``."""
    prepare_for_extensions([m for m in module.modules() if isinstance(m, torch.fx.GraphModule)])
    try:
        frontend = FrontEndManager().load_by_framework("pytorch")
        for extension in conversion_extensions():
            frontend.add_extension(extension)
        # The decoder must outlive convert(): the loaded model only holds a C++
        # reference, and a collected Python decoder fails as a "pure virtual" call.
        decoder = TorchFXPythonDecoder(
            module,
            input_shapes=[_frontend_shape(value) for value in inputs],
            input_types=list(dtypes),
        )
        return frontend.convert(frontend.load(decoder))
    except Exception as error:
        raise ConversionError(
            f"OpenVINO's PyTorch frontend failed to convert a partition: {error}"
        ) from error


def convert_module(
    module: torch.fx.GraphModule, inputs: Sequence[object], outputs: Sequence[object]
) -> ov.Model:
    """Convert a partition's graph module to an OpenVINO model.

    Args:
        module: The partition with its parameters and buffers as attributes
            (``ExportedProgram.module()``); they become constants of the model.
        inputs: Example value of each user input (``FakeTensor`` or symbolic
            scalar), in order. Each becomes a model parameter of that dtype and
            shape: static dims stay static, symbolic dims become dynamic, ints
            become 0-d i64.
        outputs: Example value of each output. Each model output is converted
            to the dtype ExecuTorch expects, so the runtime can bind ExecuTorch's
            buffers directly.

    The ops of ``ov_convert.extensions.EXTENSION_OPS`` convert through this
    project's frontend extensions, which rearrange those nodes' arguments in
    ``module``.

    Inputs and outputs in another dim order than the contiguous one (such as
    channels_last) take and give their data in that order: the model's
    parameter or result has the physical shape, converted to and from the
    logical one inside the model.

    Raises:
        ConversionError: The frontend fails, or the model's inputs or outputs do
            not match the partition's in number.
    """
    dtypes = [_dtype(value) for value in inputs]
    types = [element_type(dtype, f"partition input {i}") for i, dtype in enumerate(dtypes)]
    shapes = [_shape(value) for value in inputs]
    repeats = _drop_repeated_outputs(module)
    model = _with_repeated_outputs(_frontend_convert(module, inputs, dtypes), repeats)
    model = _with_unread_inputs(model, len(inputs))
    if len(model.inputs) != len(inputs):
        raise ConversionError(
            f"the converted model takes {len(model.inputs)} inputs but the partition has "
            f"{len(inputs)} user inputs; the runtime binds inputs by position"
        )
    if len(model.outputs) != len(outputs):
        raise ConversionError(
            f"the converted model has {len(model.outputs)} outputs but the partition has {len(outputs)}"
        )
    for parameter, ov_type, shape in zip(model.get_parameters(), types, shapes, strict=True):
        parameter.set_element_type(ov_type)
        parameter.set_partial_shape(shape)
    model.validate_nodes_and_infer_types()
    check_public_opsets(model)

    # ExecuTorch hands over and expects each tensor in its dim order (NHWC
    # memory for a channels_last NCHW tensor), which the runtime passes as the
    # physical shape; a layout conversion maps it to the model's logical one.
    processor = PrePostProcessor(model)
    for index, value in enumerate(inputs):
        if (order := _dim_order(value)) is not None:
            logical, physical = _layouts(order)
            processor.input(index).model().set_layout(logical)
            processor.input(index).tensor().set_layout(physical)
    for index, value in enumerate(outputs):
        expected = element_type(_dtype(value), f"partition output {index}")
        if model.outputs[index].get_element_type() != expected:
            processor.output(index).tensor().set_element_type(expected)
        if (order := _dim_order(value)) is not None:
            logical, physical = _layouts(order)
            processor.output(index).model().set_layout(logical)
            processor.output(index).tensor().set_layout(physical)
    return processor.build()


def operations(model: ov.Model) -> list[ov.Node]:
    """Every operation of ``model``, those of its control flow's bodies (``If``, ``Loop``) included."""
    found = []
    for op in model.get_ordered_ops():
        found.append(op)
        if op.get_type_name() == "If":
            found += operations(op.get_then_body()) + operations(op.get_else_body())
        elif op.get_type_name() in ("Loop", "TensorIterator"):
            found += operations(op.get_function())
    return found


def check_public_opsets(model: ov.Model) -> None:
    """Refuse a model that holds an operation of none of OpenVINO's opsets.

    OpenVINO's PyTorch frontend can leave one of its internal operations in a
    model it returns without an error (a ``SliceAssign``, version
    ``internal``, from a ``slice_scatter``). No plugin runs it and
    ``read_model`` refuses the IR saved from it, so such a partition would
    lower and then fail to load. The friendly name starts with the FX node's
    name, which the partitioner's trial lowering reads to keep that node on
    ExecuTorch's CPU.

    Raises:
        ConversionError: An operation's version is not ``opsetN``; the message names each.
    """
    internal = [
        f"{op.get_friendly_name()} ({op.get_type_name()}, version {op.get_type_info().version_id})"
        for op in operations(model)
        if not op.get_type_info().version_id.startswith("opset")
    ]
    if internal:
        raise ConversionError(
            "OpenVINO's PyTorch frontend left operations of no OpenVINO opset, which no "
            f"device runs: {'; '.join(internal)}"
        )


def _with_unread_inputs(model: ov.Model, count: int) -> ov.Model:
    """``model`` with a parameter, read by nothing, for each of the ``count`` inputs it lacks.

    OpenVINO's frontend leaves out some inputs a graph does not read, as a
    partition's can be once a result computed from them became a constant
    (``ov_passes.empty_results_as_constants``); the runtime binds inputs by
    position, so each keeps its place. The FX decoder names input ``i``'s
    parameter ``arg_i``.
    """
    if len(model.inputs) >= count:
        return model
    by_name = {parameter.get_friendly_name(): parameter for parameter in model.get_parameters()}
    if set(by_name) - {f"arg_{index}" for index in range(count)}:
        return model  # not the decoder's names: the count check reports it
    parameters = [
        by_name.get(f"arg_{index}") or ov.op.Parameter(ov.Type.dynamic, ov.PartialShape.dynamic())
        for index in range(count)
    ]
    return ov.Model(model.get_results(), model.get_sinks(), parameters, model.get_friendly_name())


def _drop_repeated_outputs(module: torch.fx.GraphModule) -> list[int]:
    """Keep each value once among the graph's outputs; return, per output, its index among those kept.

    OpenVINO's FX decoder fails on a graph that returns one node twice ("Tensor
    name is not a number"), as a partition does once a no-op alias of an
    output is dropped (``ov_passes.drop_no_op_aliases``).
    """
    output = next(node for node in module.graph.nodes if node.op == "output")
    values = list(output.args[0])
    kept = list(dict.fromkeys(values))
    if len(kept) < len(values):
        output.args = (tuple(kept),)
    return [kept.index(value) for value in values]


def _with_repeated_outputs(model: ov.Model, repeats: list[int]) -> ov.Model:
    """Return ``model`` with one result per partition output: ``repeats[i]`` is output i's source."""
    if repeats == list(range(len(repeats))):
        return model
    results = model.get_results()
    first = {index: position for position, index in reversed(list(enumerate(repeats)))}
    ordered = [
        results[index]
        if first[index] == position
        else opset13.result(results[index].input_value(0))
        for position, index in enumerate(repeats)
    ]
    return ov.Model(ordered, model.get_parameters(), model.get_friendly_name())


def signature(values: Sequence[object]) -> str:
    """One letter per value: ``T`` for a tensor, ``S`` for a scalar (int, float, bool)."""
    return "".join(
        TENSOR_ARGUMENT if isinstance(value, torch.Tensor) else SCALAR_ARGUMENT for value in values
    )


def input_signature(model: ov.Model, inputs: Sequence[object]) -> str:
    """The inputs' letters, with ``P`` or ``F`` for the parameter of KV-cache positions.

    That parameter carries the runtime info
    :data:`ov_convert.appended_caches.POSITIONS_INPUT`: a tensor of the
    positions (``P``), or a scalar, the first of them (``F``).
    """
    letters = list(signature(inputs))
    for index, parameter in enumerate(model.get_parameters()):
        if POSITIONS_INPUT in parameter.get_rt_info():
            scalar = letters[index] == SCALAR_ARGUMENT
            letters[index] = FIRST_POSITION_ARGUMENT if scalar else POSITIONS_ARGUMENT
    return "".join(letters)


def output_signature(model: ov.Model, outputs: Sequence[object]) -> str:
    """The outputs' letters, with ``C`` for each tensor output the model does not compute.

    Such an output is a Parameter, a Constant, or the same value as an earlier
    output (``x.transpose(0, 0)``, ``return y, y``). Bound to ExecuTorch's buffer
    like a computed one, OpenVINO's CPU plugin leaves that buffer unwritten and
    can hand the buffer to the Parameter, so even other outputs that read the
    input come out wrong; copied after inference, they are right.
    """
    letters = list(signature(outputs))
    seen: set[tuple[str, int]] = set()
    for index, result in enumerate(model.get_results()):
        source = result.input_value(0)
        node = source.get_node()
        key = (node.get_name(), source.get_index())
        passed_through = node.get_type_name() in ("Parameter", "Constant") or key in seen
        if letters[index] == TENSOR_ARGUMENT and passed_through:
            letters[index] = COPIED_ARGUMENT
        seen.add(key)
    return "".join(letters)


def serialize(model: ov.Model, folder: Path) -> tuple[bytes, Path]:
    """Save ``model`` as IR in ``folder``; return the XML and the path of the weights (``.bin``).

    Float32 weights stay uncompressed: ``openvino.save_model`` compresses them
    to f16 unless told not to. The weights stay in their file, so that the
    payload can take them from there (``Payload.to_bytes``) without another
    copy in memory.
    """
    xml_path = folder / "model.xml"
    ov.save_model(model, xml_path, compress_to_fp16=False)
    return xml_path.read_bytes(), xml_path.with_suffix(".bin")
