"""What a program delegates to OpenVINO, with what options, and what it leaves on the CPU.

Reads a ``.pte`` with ExecuTorch's own deserializer (the one its devtools
use), or a program lowered here, whose partitioner recorded a reason for each
node it left on ExecuTorch's CPU kernels. Each delegate of this backend is read
back from its payload: its version, the device and OpenVINO properties it
carries, and the inputs and outputs of its OpenVINO IR.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np
import openvino as ov
import torch
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.schema import KernelCall, Program
from torch.export import ExportedProgram

from ov_convert import (
    COPIED_ARGUMENT,
    FIRST_POSITION_ARGUMENT,
    POSITIONS_ARGUMENT,
    SCALAR_ARGUMENT,
    TENSOR_ARGUMENT,
    Payload,
    PayloadError,
)
from ov_partition import converts
from ov_runtime.exceptions import ExecutionError
from ov_runtime.facade.lowering import LoweredProgram, lower
from ov_runtime.facade.running import check_identifier
from ov_runtime.native import compile_properties, payload_refusal
from ov_spec import BACKEND_ID

_T = TypeVar("_T")


@dataclass(frozen=True)
class DelegateReport:
    """One delegate of a program.

    Attributes:
        method: The method it belongs to (``forward``).
        backend_id: The backend that runs it (``OvExecutorchBackend``).
        payload_bytes: Size of its processed bytes.
        payload_version: This backend's payload version; None for another
            backend's delegate.
        device: The OpenVINO device it compiles for ("" for another backend).
        properties: The OpenVINO properties it compiles with.
        inputs: Each IR input, ``"tensor f32[?,4]"`` or ``"scalar i64[]"``.
        outputs: Each IR output, in the same form.
        states: Each buffer the delegate keeps as OpenVINO state between
            calls (``key_cache_0 f32[1,2,128,16]``), in place of an input and
            an output that ExecuTorch would copy.
        compiled_blob: The compiled blob it carries (``"266642 bytes for AMD
            EPYC by OpenVINO 2026.4.1-..."``), else "".
        weights: Where its weights are: ``"1024 bytes in the payload"``, or
            ``"4200616 bytes of named data OvExecutorchBackend.weights.970b..."``
            (in the ``.pte``, or ``"... in a data file"`` when a ``.ptd`` holds
            them), else "".
        problem: Why the payload could not be read, else "".
    """

    method: str
    backend_id: str
    payload_bytes: int
    payload_version: int | None = None
    device: str = ""
    properties: Mapping[str, str] = field(default_factory=dict)
    inputs: Sequence[str] = ()
    outputs: Sequence[str] = ()
    states: Sequence[str] = ()
    compiled_blob: str = ""
    weights: str = ""
    problem: str = ""


@dataclass(frozen=True)
class ProgramReport:
    """The delegates of a program and the nodes it leaves on ExecuTorch's CPU kernels.

    Attributes:
        delegates: Every delegate of every method, in order.
        cpu_nodes: Each node (for a program lowered here) or CPU kernel (for
            a ``.pte``: ``method: kernel xcalls``) left on ExecuTorch's CPU
            kernels, with the reason.
    """

    delegates: Sequence[DelegateReport]
    cpu_nodes: Mapping[str, str]

    def format(self) -> str:
        """The report as text, one delegate or CPU node a line or a few."""
        lines = [f"{len(self.delegates)} delegate(s)"]
        for index, delegate in enumerate(self.delegates):
            lines.append(
                f"delegate {index} of {delegate.method}: {delegate.backend_id}, "
                f"{delegate.payload_bytes} payload bytes"
            )
            if delegate.problem:
                lines.append(f"  cannot read the payload: {delegate.problem}")
            if delegate.payload_version is None:
                continue
            properties = " ".join(f"{k}={v}" for k, v in delegate.properties.items())
            lines.append(f"  payload version {delegate.payload_version}")
            lines.append(f"  device {delegate.device}; properties: {properties or 'none'}")
            lines.append(f"  weights: {delegate.weights}")
            lines += [f"  input {i}: {port}" for i, port in enumerate(delegate.inputs)]
            lines += [f"  output {i}: {port}" for i, port in enumerate(delegate.outputs)]
            lines += [f"  state {state}" for state in delegate.states]
            if delegate.compiled_blob:
                lines.append(f"  compiled blob: {delegate.compiled_blob}")
        lines.append(f"{len(self.cpu_nodes)} left on ExecuTorch's CPU kernels")
        lines += [f"  {name}: {reason}" for name, reason in self.cpu_nodes.items()]
        return "\n".join(lines)


def inspect_program(
    program: LoweredProgram | ExportedProgram | bytes | str | Path,
    compile_specs: Sequence[CompileSpec] | None = None,
) -> ProgramReport:
    """Report the delegates of a program and what it leaves on the CPU.

    Args:
        program: An ``ExportedProgram``, lowered here with ``compile_specs``,
            or a program lowered with :func:`ov_runtime.lower`: their CPU nodes
            come with the partitioner's reasons. Or a ``.pte`` as bytes or a
            path: its CPU kernels come with the reason the kernel's name gives
            (the ops OpenVINO's frontend does not convert); the other reasons
            depend on dtypes and arguments that only lowering sees.
        compile_specs: The compile specs to lower an ``ExportedProgram`` with.

    Raises:
        OSError: The path cannot be read.
        ExecutionError: The bytes are not an ExecuTorch program.
        CompileSpecError, ConversionError: Lowering an ``ExportedProgram`` failed.
    """
    if isinstance(program, ExportedProgram):
        program = lower(program, compile_specs=compile_specs)
    if isinstance(program, LoweredProgram):
        rejections = dict(program.rejections)
        return _read_program(
            program.buffer,
            lambda schema, named: ProgramReport(_delegates(schema, named), rejections),
        )
    return _read_program(
        program,
        lambda schema, named: ProgramReport(_delegates(schema, named), _cpu_kernels(schema)),
    )


def _read_program(
    program: bytes | str | Path, read: Callable[[Program, Mapping[str, bytes]], _T]
) -> _T:
    """Deserialize a ``.pte`` given as bytes or a path and ``read`` it with its named data.

    Damaged bytes may deserialize into a program with missing parts, which
    fails only when read, so ``read`` runs inside the same check.

    Raises:
        OSError: The path cannot be read.
        ExecutionError: The bytes are not an ExecuTorch program.
    """
    data = program if isinstance(program, bytes) else Path(program).read_bytes()
    check_identifier(data[:8], "the buffer" if isinstance(program, bytes) else str(program))
    try:
        pte = deserialize_pte_binary(data)
        named = pte.named_data
        return read(
            pte.program,
            {}
            if named is None
            else {key: named.buffers[entry.buffer_index] for key, entry in named.pte_data.items()},
        )
    except Exception as error:  # the deserializer raises several kinds for damaged bytes
        raise ExecutionError(f"cannot read the ExecuTorch program: {error}") from error


COMPUTE_LAYERS = ("Convolution", "MatMul", "FullyConnected")
"""Layer types of OpenVINO's CPU runtime model whose precision says whether a delegate runs int8."""


def runtime_precisions(
    program: LoweredProgram | bytes | str | Path,
) -> list[dict[str, dict[str, int]]]:
    """Compile each delegate of this backend as the runtime does and count its layers' precisions.

    For every delegate (in program order) the payload's IR is compiled with
    OpenVINO's Python API on the payload's device with its properties, which is
    what the native runtime hands ``ov_core_compile_model``: the native
    runtime says which (:func:`ov_runtime.native.compile_properties`), for
    example ``LP_TRANSFORMS_MODE=NO`` where wide int8 weights would saturate
    this CPU's int8 kernels. The runtime model
    (``CompiledModel.get_runtime_model``) names each executed layer's type
    (``layerType``) and the precision it runs in (``runtimePrecision``). For
    example ``{"Convolution": {"u8": 20}, "FullyConnected": {"u8": 1}}`` is an
    int8 ResNet-18 on the CPU: OpenVINO's low-precision transformations fused
    the quantize and dequantize pattern into int8 kernels.

    Returns:
        For each delegate, ``{layer type: {precision: count}}`` for the layer
        types in :data:`COMPUTE_LAYERS`.

    Raises:
        OSError: The path cannot be read.
        ExecutionError: The bytes are not an ExecuTorch program, or a
            delegate's payload is damaged.
        PayloadError: A delegate's payload in a ``LoweredProgram`` is damaged.
    """
    return _read_program(
        program.buffer if isinstance(program, LoweredProgram) else program, _precisions
    )


def _precisions(schema: Program, named: Mapping[str, bytes]) -> list[dict[str, dict[str, int]]]:
    core = ov.Core()
    counts = []
    for plan in schema.execution_plan:
        for delegate in plan.delegates:
            if delegate.id != BACKEND_ID:
                continue
            processed = bytes(schema.backend_delegate_data[delegate.processed.index].data)
            payload = Payload.from_bytes(processed)
            compiled = core.compile_model(
                _read_model(core, payload, named), payload.device, compile_properties(processed)
            )
            layers: dict[str, collections.Counter[str]] = collections.defaultdict(
                collections.Counter
            )
            for op in compiled.get_runtime_model().get_ordered_ops():
                info = op.get_rt_info()
                kind = info["layerType"].astype(str)
                if kind in COMPUTE_LAYERS:
                    layers[kind][info["runtimePrecision"].astype(str)] += 1
            counts.append({kind: dict(precisions) for kind, precisions in layers.items()})
    return counts


def _read_model(core: ov.Core, payload: Payload, named: Mapping[str, bytes]) -> ov.Model:
    """The payload's model, with its named weights from ``named``.

    Weights kept in a data file that was not given read as zeros: the IR's
    ports, states and layer precisions do not depend on their values.
    """
    reference = payload.named_weights
    if reference is None:
        data = payload.weights
    else:
        data = named[reference.key] if reference.key in named else bytes(reference.size)
    weights = ov.Tensor(np.frombuffer(data, dtype=np.uint8).copy())
    return core.read_model(model=payload.xml, weights=weights)


def delegate_models(program: bytes | str | Path) -> list[tuple[Payload, ov.Model]]:
    """Each delegate of this backend in a ``.pte``: its payload and its OpenVINO model.

    The model is read with OpenVINO's Python API from the payload's IR and its
    weights (from the program's named data when the payload names them), as
    the runtime reads it; weights kept in a data file read as zeros.

    Raises:
        OSError: The path cannot be read.
        ExecutionError: The bytes are not an ExecuTorch program, or a payload is damaged.
    """

    def read(schema: Program, named: Mapping[str, bytes]) -> list[tuple[Payload, ov.Model]]:
        core = ov.Core()
        payloads = [
            Payload.from_bytes(bytes(schema.backend_delegate_data[delegate.processed.index].data))
            for plan in schema.execution_plan
            for delegate in plan.delegates
            if delegate.id == BACKEND_ID
        ]
        return [(payload, _read_model(core, payload, named)) for payload in payloads]

    return _read_program(program, read)


def _weights(payload: Payload, named: Mapping[str, bytes]) -> str:
    reference = payload.named_weights
    if reference is None:
        return f"{len(payload.weights)} bytes in the payload"
    where = "" if reference.key in named else " in a data file"
    return f"{reference.size} bytes of named data {reference.key}{where}"


def _delegates(program: Program, named: Mapping[str, bytes]) -> list[DelegateReport]:
    reports = []
    for plan in program.execution_plan:
        for delegate in plan.delegates:
            data = bytes(program.backend_delegate_data[delegate.processed.index].data)
            if delegate.id != BACKEND_ID:
                reports.append(DelegateReport(plan.name, delegate.id, len(data)))
                continue
            try:
                reports.append(_read_payload(plan.name, data, named))
            except (PayloadError, RuntimeError) as error:
                reports.append(
                    DelegateReport(plan.name, delegate.id, len(data), problem=str(error))
                )
    return reports


def _read_payload(method: str, data: bytes, named: Mapping[str, bytes]) -> DelegateReport:
    # OpenVINO reads nothing the runtime would refuse (a hostile XML exhausts its reader's memory).
    if refusal := payload_refusal(data):
        raise PayloadError(refusal)
    payload = Payload.from_bytes(data)
    model = _read_model(ov.Core(), payload, named)
    return DelegateReport(
        method=method,
        backend_id=BACKEND_ID,
        payload_bytes=len(data),
        payload_version=int.from_bytes(data[8:12], "little"),
        device=payload.device,
        properties=dict(payload.properties),
        inputs=_ports(model.inputs, payload.inputs),
        outputs=_ports(model.outputs, payload.outputs),
        states=[
            f"{info.variable_id} {info.data_type.get_type_name()}{info.data_shape}"
            for info in (variable.get_info() for variable in model.get_variables())
        ],
        compiled_blob=""
        if (blob := payload.compiled_blob) is None
        else f"{len(blob.data)} bytes for {blob.device_name} by OpenVINO {blob.openvino_version}",
        weights=_weights(payload, named),
    )


def _ports(ports: Sequence[ov.Output], kinds: str) -> list[str]:
    names = {
        TENSOR_ARGUMENT: "tensor",
        SCALAR_ARGUMENT: "scalar",
        COPIED_ARGUMENT: "copied tensor",
        POSITIONS_ARGUMENT: "KV-cache positions",
        FIRST_POSITION_ARGUMENT: "first KV-cache position",
    }
    return [
        f"{names.get(kind, '?')} {port.get_element_type().get_type_name()}{port.get_partial_shape()}"
        for port, kind in zip(ports, kinds.ljust(len(ports), "?"), strict=True)
    ]


def _reason(name: str) -> str:
    """Why a kernel such as ``aten::add`` is on the CPU, as far as its name tells.

    The kernel is an out variant; when lowering converts any functional
    overload of the op, the reason was a dtype or argument check.
    """
    namespace, _, op = name.partition("::")
    packet = getattr(getattr(torch.ops, namespace, None), op, None)
    overloads = packet.overloads() if packet is not None else []
    functional = [o for o in overloads if o != "out" and not o.endswith("_out")]
    if any(converts(f"{namespace}.{op}.{overload}") for overload in functional):
        return "a dtype or argument check of the partitioner (inspecting the .pt2 names it)"
    return f"OpenVINO's PyTorch frontend does not convert {namespace}.{op}"


def _cpu_kernels(program: Program) -> dict[str, str]:
    kernels = {}
    for plan in program.execution_plan:
        calls: collections.Counter[int] = collections.Counter(
            instruction.instr_args.op_index
            for chain in plan.chains
            for instruction in chain.instructions
            if isinstance(instruction.instr_args, KernelCall)
        )
        for index, operator in enumerate(plan.operators):
            key = f"{plan.name}: {operator.name}.{operator.overload} x{calls[index]}"
            kernels[key] = _reason(operator.name)
    return kernels
