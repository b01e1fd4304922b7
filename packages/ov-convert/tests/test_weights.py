import numpy as np
import openvino as ov
import pytest
from openvino import opset13 as ops

from ov_convert.compressed_weights import four_bit_weights
from ov_convert.constant_readers import fold_constant_readers
from ov_convert.int8_saturation import int8_products_may_saturate


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


def state_and_input_products(values: np.ndarray) -> ov.Model:
    """An RNN's first step: one int8 weight times a constant state and times the input."""
    x = ops.parameter([1, values.shape[1]], ov.Type.f32)
    weight = ops.multiply(ops.convert(ops.constant(values), ov.Type.f32), np.float32(0.01))
    low, high = np.float32(-1), np.float32(1)
    state = ops.fake_quantize(
        ops.constant(np.full((1, values.shape[1]), 0.3, np.float32)), low, high, low, high, 256
    )
    from_state = ops.matmul(state, weight, False, True)
    return ov.Model([ops.add(ops.matmul(x, weight, False, True), from_state)], [x])


def test_a_product_of_constants_with_a_compressed_weight_is_folded_and_the_weight_kept():
    values = np.random.default_rng(0).integers(-127, 128, size=(8, 16)).astype(np.int8)
    model = state_and_input_products(values)
    with pytest.raises(RuntimeError, match="is_static"):
        compute(model, np.zeros((1, 16), np.float32))  # OpenVINO 2026.4's CPU plugin
    assert fold_constant_readers(model) == 1
    assert ov.Type.i8 in constant_types(model)
    x = np.random.default_rng(1).standard_normal((1, 16)).astype(np.float32)
    state = np.round((0.3 + 1) / 2 * 255) * 2 / 255 - 1  # the FakeQuantize's value
    expected = (x + state) @ (values.astype(np.float32) * 0.01).T
    np.testing.assert_allclose(compute(model, x), expected, rtol=1e-5, atol=1e-5)


def quantized_product(weights: ov.Node, quantize_input: bool = True) -> ov.Model:
    x = ops.parameter([2, 16], ov.Type.f32)
    low, high = np.float32(-1), np.float32(1)
    data = ops.fake_quantize(x, low, high, low, high, 256) if quantize_input else x
    return ov.Model([ops.matmul(data, weights, False, True)], [x])


@pytest.mark.parametrize(
    ("limit", "quantize_input", "saturates"),
    [(127, True, True), (64, True, False), (127, False, False)],
    ids=["eight_bits", "seven_bits", "weight_only"],
)
def test_wide_int8_weights_are_flagged_only_with_quantized_activations(
    limit, quantize_input, saturates
):
    values = np.random.default_rng(0).integers(-limit, limit + 1, size=(8, 16)).astype(np.int8)
    weights = ops.multiply(ops.convert(ops.constant(values), ov.Type.f32), np.float32(0.01))
    assert int8_products_may_saturate(quantized_product(weights, quantize_input)) is saturates


@pytest.mark.parametrize(("levels", "saturates"), [(255, True), (129, False)])
def test_fake_quantized_constant_weights_are_flagged_by_their_levels(levels, saturates):
    values = np.random.default_rng(0).standard_normal((8, 16)).astype(np.float32)
    low, high = np.float32(-3), np.float32(3)
    weights = ops.fake_quantize(ops.constant(values), low, high, low, high, levels)
    assert int8_products_may_saturate(quantized_product(weights)) is saturates
