"""Computations on constants alone that read a compressed weight, folded into their value."""

from __future__ import annotations

import numpy as np
import openvino as ov
from openvino import opset13

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
    compressed: set[str] = set()
    folds = []
    for node in constant_computations(model):
        kind = node.get_type_name()
        if kind == "Constant":
            continue
        sources = [port.get_source_output().get_node() for port in node.inputs()]
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
        results = [constant_value(output, values) for output in node.outputs()]
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


def constant_computations(model: ov.Model) -> list[ov.Node]:
    """The nodes of ``model`` that compute on constants alone (constants included), in order."""
    constant: set[str] = set()
    found = []
    for node in model.get_ordered_ops():
        sources = [port.get_source_output().get_node().get_name() for port in node.inputs()]
        if node.get_type_name() in _STATEFUL or not all(name in constant for name in sources):
            continue
        constant.add(node.get_name())
        found.append(node)
    return found


def constant_value(
    output: ov.Output, values: dict[tuple[str, int], np.ndarray] | None = None
) -> np.ndarray | None:
    """The value of a constant-only computation's output, or None where OpenVINO cannot evaluate it.

    ``values`` caches what was computed, by node name and output index.
    """
    values = {} if values is None else values
    node = output.get_node()
    key = (node.get_name(), output.get_index())
    if key in values:
        return values[key]
    if node.get_type_name() == "Constant":
        return np.asarray(node.get_data())
    inputs = []
    for port in node.inputs():
        value = constant_value(port.get_source_output(), values)
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
