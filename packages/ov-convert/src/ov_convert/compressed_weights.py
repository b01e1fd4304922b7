"""Compressed weights stored at their real width: 4-bit values in i4 and u4 constants.

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
    for node in decompression_constants(model):
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


def decompression_constants(model: ov.Model) -> list[ov.Node]:
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
