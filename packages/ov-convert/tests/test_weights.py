import numpy as np
import openvino as ov
import pytest
from openvino import opset13 as ops

from ov_convert.weights import four_bit_weights


def decompressed_product(values: np.ndarray, zero_point: np.ndarray | None = None) -> ov.Model:
    """x @ ((values - zero_point) * 0.1).T: OpenVINO's weight decompression pattern."""
    x = ops.parameter([2, values.shape[1]], ov.Type.f32)
    weight = ops.convert(ops.constant(values), ov.Type.f32)
    if zero_point is not None:
        weight = ops.subtract(weight, ops.convert(ops.constant(zero_point), ov.Type.f32))
    weight = ops.multiply(weight, ops.constant(np.float32(0.1)))
    return ov.Model([ops.matmul(x, weight, False, True)], [x])


def constant_types(model: ov.Model) -> list[ov.Type]:
    return [
        op.get_output_element_type(0)
        for op in model.get_ordered_ops()
        if op.get_type_name() == "Constant"
    ]


def compute(model: ov.Model, x: np.ndarray) -> np.ndarray:
    properties = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
    result: np.ndarray = ov.Core().compile_model(model, "CPU", properties)(x)[0]
    return result


@pytest.mark.parametrize(
    ("dtype", "low", "high", "narrow"),
    [(np.int8, -8, 7, ov.Type.i4), (np.uint8, 0, 15, ov.Type.u4)],
)
def test_weights_whose_values_fit_in_four_bits_are_stored_in_four(dtype, low, high, narrow):
    rng = np.random.default_rng(0)
    values = rng.integers(low, high + 1, size=(16, 32)).astype(dtype)
    zero_point = rng.integers(low, high + 1, size=(16, 1)).astype(dtype)
    x = rng.standard_normal((2, 32)).astype(np.float32)
    before = compute(decompressed_product(values, zero_point), x)
    model = decompressed_product(values, zero_point)
    assert four_bit_weights(model) == 2
    assert constant_types(model).count(narrow) == 2
    np.testing.assert_array_equal(compute(model, x), before)


def test_weights_with_wider_values_or_other_readers_keep_eight_bits():
    wide = decompressed_product(np.full((4, 8), -9, dtype=np.int8))
    assert four_bit_weights(wide) == 0
    x = ops.parameter([4], ov.Type.i8)
    # An int8 constant added to an int8 input: data, not a compressed weight.
    data = ov.Model([ops.add(x, ops.constant(np.ones(4, dtype=np.int8)))], [x])
    assert four_bit_weights(data) == 0
    assert ov.Type.i8 in constant_types(data)
