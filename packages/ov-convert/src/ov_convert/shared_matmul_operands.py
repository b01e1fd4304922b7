"""A weight read by several MatMuls both transposed and not: the untransposed readers get a copy.

A weight that a model uses both in a linear layer and as it is
(``relu(linear(x)) @ linear.weight``) reaches OpenVINO as one ``Constant`` read
by a ``MatMul`` with ``transpose_b`` and by one without. OpenVINO 2026.4's CPU
plugin computes such a pair wrong: both products use the weight as one of them
reads it (``x @ W.T`` twice in place of ``x @ W.T`` then ``@ W``), and an
explicit ``Transpose`` in front of one does not help, since the plugin fuses it
back into the flag. OpenVINO's own ``convert_model`` happens to fold the
transpose into a second constant, which the plugin computes right. So here
each MatMul that reads such a weight untransposed reads a transposed copy of
it instead, with the flag set. The copy costs the weight's size once more, in
float for a compressed weight, for this pattern alone.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
from openvino import opset13

from ov_convert.constant_readers import constant_computations, constant_value


def _flag(matmul: ov.Node, port: int) -> bool:
    attributes = matmul.get_attributes()
    return bool(attributes["transpose_b" if port == 1 else "transpose_a"])


def align_matmul_transposes(model: ov.Model) -> int:
    """Give each MatMul reading a constant untransposed, where others read it transposed, a copy.

    Of a group of MatMuls that read the same constant, or computation on
    constants alone (a compressed weight's decompression), at the same port
    (``a`` or ``b``) with differing ``transpose_a``/``transpose_b``, those
    without the flag read a constant copy of its value with the last two dims
    swapped, with the flag set: the same product. Returns how many MatMuls
    were changed.
    """
    changed = 0
    # A node replaced earlier still reads its inputs.
    live = {node.get_name() for node in model.get_ordered_ops()}
    for node in constant_computations(model):
        for output in node.outputs():
            if len(output.get_partial_shape()) < 2:
                continue  # a vector's flag does nothing
            for port in (0, 1):
                readers = [
                    target.get_node()
                    for target in output.get_target_inputs()
                    if target.get_node().get_type_name() == "MatMul"
                    and target.get_index() == port
                    and target.get_node().get_name() in live
                ]
                if len({_flag(matmul, port) for matmul in readers}) < 2:
                    continue
                value = constant_value(output)
                if value is None:
                    continue  # OpenVINO cannot evaluate it here: left as it is
                for matmul in readers:
                    if not _flag(matmul, port):
                        _read_transposed(matmul, port, output, value)
                        changed += 1
    return changed


def _read_transposed(matmul: ov.Node, port: int, operand: ov.Output, value: np.ndarray) -> None:
    """Replace ``matmul`` with one that reads a transposed copy of ``operand``'s ``value``, flag set."""
    copy = np.ascontiguousarray(np.swapaxes(value, -1, -2))
    transposed = opset13.constant(copy, operand.get_element_type())
    attributes = matmul.get_attributes()
    inputs = [matmul.input_value(0), matmul.input_value(1)]
    inputs[port] = transposed.output(0)
    replacement = opset13.matmul(
        inputs[0],
        inputs[1],
        transpose_a=bool(attributes["transpose_a"]) or port == 0,
        transpose_b=bool(attributes["transpose_b"]) or port == 1,
    )
    replacement.set_friendly_name(matmul.get_friendly_name())
    matmul.output(0).replace(replacement.output(0))
