"""Compressed weights: stored at their real width, and what OpenVINO's CPU plugin needs of them.

PyTorch has no 4-bit tensors, so torchao's int4 weight-only quantization keeps
its values (``-8..7``, or ``0..15`` unsigned) in int8 tensors, and the
converted model holds them as i8 constants: twice the bytes the weights need.
OpenVINO has ``i4`` and ``u4`` element types, and its CPU and GPU plugins run
FullyConnected layers on 4-bit compressed weights directly.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
from openvino import opset13

# OpenVINO's weight decompression: Constant -> Convert -> [Subtract] -> Multiply.
_DECOMPRESSION = frozenset({"Subtract", "Multiply"})
_NARROWER = {
    ov.Type.i8: (ov.Type.i4, -8, 7),
    ov.Type.u8: (ov.Type.u4, 0, 15),
}


def four_bit_weights(model: ov.Model) -> int:
    """Store each 8-bit decompression constant whose values fit in 4 bits as i4 or u4.

    A constant qualifies when it is i8 with values in ``[-8, 7]`` (or u8 in
    ``[0, 15]``) and every reader is a ``Convert`` that feeds only a
    ``Subtract`` or ``Multiply``: the weight decompression pattern. The values
    are unchanged, so the results are too.

    Returns:
        How many constants were narrowed.
    """
    narrowed = 0
    for node in _decompression_constants(model):
        narrow, low, high = _NARROWER[node.get_output_element_type(0)]
        values = node.get_data()
        if values.size == 0 or values.min() < low or values.max() > high:
            continue
        replacement = opset13.constant(np.ascontiguousarray(values), dtype=narrow)
        replacement.set_friendly_name(node.get_friendly_name())
        for target in list(node.output(0).get_target_inputs()):
            target.replace_source_output(replacement.output(0))
        narrowed += 1
    if narrowed:
        model.validate_nodes_and_infer_types()
    return narrowed


def _decompression_constants(model: ov.Model) -> list[ov.Node]:
    """The model's 8-bit constants whose every reader is a decompression ``Convert``."""
    found = []
    for node in model.get_ordered_ops():
        if node.get_type_name() != "Constant" or node.get_output_element_type(0) not in _NARROWER:
            continue
        readers = [target.get_node() for target in node.output(0).get_target_inputs()]
        if readers and all(_decompresses(reader) for reader in readers):
            found.append(node)
    return found


def _decompresses(node: ov.Node) -> bool:
    if node.get_type_name() != "Convert":
        return False
    consumers = [target.get_node() for target in node.output(0).get_target_inputs()]
    return bool(consumers) and all(c.get_type_name() in _DECOMPRESSION for c in consumers)


# The ops between a compressed constant and its reader: OpenVINO's weight
# decompression, possibly reshaped (per-group scales) or transposed.
_DECOMPRESSION_CHAIN = frozenset(
    {"Convert", "Subtract", "Multiply", "Reshape", "Transpose", "Unsqueeze", "Squeeze"}
)
_COMPRESSED = frozenset({ov.Type.i8, ov.Type.u8, ov.Type.i4, ov.Type.u4})
_STATEFUL = frozenset({"Parameter", "ReadValue", "Assign", "Result"})


def fold_constant_readers(model: ov.Model) -> int:
    """Replace each computation on constants alone that reads a compressed weight by its value.

    An RNN's first step multiplies a weight by the constant initial state
    (zeros), so its quantized program holds ``MatMul(constant, decompressed
    int8 weight)``. OpenVINO 2026.4's CPU plugin fails to compile that
    (``Check 'm_element_type.is_static()' failed``) while the same weight
    read by a computed input compiles. The value is computed here with
    OpenVINO's reference evaluation (``Node.evaluate``); the decompression
    itself stays, for the weight's other readers.

    Returns:
        How many computations were folded.
    """
    constant: set[str] = set()
    compressed: set[str] = set()
    folds = []
    for node in model.get_ordered_ops():
        kind = node.get_type_name()
        sources = [port.get_source_output().get_node() for port in node.inputs()]
        if kind == "Constant":
            constant.add(node.get_name())
            continue
        if kind in _STATEFUL or not all(s.get_name() in constant for s in sources):
            continue
        constant.add(node.get_name())
        reads_compressed = any(
            s.get_name() in compressed
            or (s.get_type_name() == "Constant" and s.get_output_element_type(0) in _COMPRESSED)
            for s in sources
        )
        if reads_compressed and kind in _DECOMPRESSION_CHAIN:
            compressed.add(node.get_name())
        elif any(s.get_name() in compressed for s in sources):
            folds.append(node)
    values: dict[tuple[str, int], np.ndarray] = {}
    folded = 0
    for node in folds:
        results = [_value(output, values) for output in node.outputs()]
        if any(result is None for result in results):
            continue
        for output, result in zip(node.outputs(), results, strict=True):
            replacement = opset13.constant(result, dtype=output.get_element_type())
            replacement.set_friendly_name(node.get_friendly_name())
            output.replace(replacement.output(0))
        folded += 1
    if folded:
        model.validate_nodes_and_infer_types()
    return folded


def _value(output: ov.Output, values: dict[tuple[str, int], np.ndarray]) -> np.ndarray | None:
    """The value of a constant-only computation's output, or None where OpenVINO cannot evaluate it."""
    node = output.get_node()
    key = (node.get_name(), output.get_index())
    if key in values:
        return values[key]
    if node.get_type_name() == "Constant":
        return np.asarray(node.get_data())
    inputs = []
    for port in node.inputs():
        value = _value(port.get_source_output(), values)
        if value is None:
            return None
        inputs.append(ov.Tensor(np.ascontiguousarray(value)))
    outputs = [ov.Tensor(out.get_element_type(), out.get_shape()) for out in node.outputs()]
    try:
        if not node.evaluate(outputs, inputs):
            return None
    except RuntimeError:  # an op or element type without a reference implementation
        return None
    for out, tensor in zip(node.outputs(), outputs, strict=True):
        values[(node.get_name(), out.get_index())] = tensor.data.copy()
    return values[key]


_SATURATION_FREE = 64
"""The widest int8 weight whose products with u8 activations never saturate.

OpenVINO's CPU plugin runs int8 layers with oneDNN, whose kernels for CPUs
without VNNI (AVX2, AVX-512 before Cascade Lake) multiply with ``vpmaddubsw``:
it adds two u8 x s8 products into a saturating int16. ``255 * 64 * 2 = 32640``
fits; ``255 * 127 * 2`` does not, and a quantized Linear with full-range int8
weights then differs from eager by tens of quantization steps. NNCF's
overflow fix quantizes weights to 7 bits for the same reason.
"""


def int8_products_may_saturate(model: ov.Model) -> bool:
    """Whether OpenVINO's int8 kernels could saturate this model's products on a CPU without VNNI.

    True when the model quantizes activations (a ``FakeQuantize`` of a
    computed value, which OpenVINO's low-precision transformations fuse into
    int8 layers) and has a weight of more than 7 bits: an 8-bit weight
    decompression constant holding a value beyond +-64, or a ``FakeQuantize``
    of a constant with more than 129 levels (an unfolded PT2E program's
    weights). The payload records it (``Payload.wide_int8_weights``) for the
    runtime, which knows the CPU.
    """
    quantizes_activations = wide_weights = False
    for node in model.get_ordered_ops():
        if node.get_type_name() == "FakeQuantize":
            if node.input_value(0).get_node().get_type_name() != "Constant":
                quantizes_activations = True
            elif int(node.get_attributes()["levels"]) > 2 * _SATURATION_FREE + 1:
                wide_weights = True
    if not quantizes_activations:
        return False
    return wide_weights or any(
        np.abs(node.get_data().astype(np.int16)).max(initial=0) > _SATURATION_FREE
        for node in _decompression_constants(model)
    )
