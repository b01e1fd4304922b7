"""A weight read both transposed and not by two MatMuls: each reader gets the layout it reads."""

import numpy as np
import openvino as ov
from openvino import opset13

from ov_convert.shared_matmul_operands import align_matmul_transposes


def test_only_the_untransposed_reader_gets_a_transposed_copy():
    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = opset13.parameter([1, 3], np.float32)
    constant = opset13.constant(weight)
    first = opset13.matmul(x, constant, False, True)  # [1, 2]
    second = opset13.matmul(first, constant, False, False)  # [1, 3]
    model = ov.Model([second], [x])
    assert align_matmul_transposes(model) == 1
    matmuls = [op for op in model.get_ordered_ops() if op.get_type_name() == "MatMul"]
    assert all(op.get_attributes()["transpose_b"] for op in matmuls)
    copy = matmuls[1].input_value(1).get_node()
    assert copy is not constant.output(0).get_node()
    np.testing.assert_array_equal(copy.get_data(), weight.T)
    assert align_matmul_transposes(model) == 0


def test_a_compressed_weight_read_both_ways_computes_both_products():
    # int8 values, their Convert and per-row scale: the form OpenVINO keeps compressed.
    rng = np.random.default_rng(0)
    values = rng.integers(-100, 100, (8, 8)).astype(np.int8)
    scales = np.full((8, 1), 0.01, np.float32)
    x = rng.standard_normal((1, 8)).astype(np.float32)
    parameter = opset13.parameter([1, 8], np.float32)
    weight = opset13.multiply(
        opset13.convert(opset13.constant(values), ov.Type.f32), opset13.constant(scales)
    )
    transposed = opset13.matmul(parameter, weight, False, True)
    model = ov.Model([opset13.matmul(transposed, weight, False, False)], [parameter])
    assert align_matmul_transposes(model) == 1
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    dequantized = values.astype(np.float32) * scales
    np.testing.assert_allclose(compiled([x])[0], x @ dequantized.T @ dequantized, rtol=1e-5)
