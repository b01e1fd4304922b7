import pytest
import torch
from torchao.quantization.quant_primitives import MappingType, dequantize_affine

from ov_passes import affine_quantization_as_arithmetic, op_name
from ov_passes.affine_quantization import affine_limit

TORCHAO_OPS = {
    "torchao.choose_qparams_affine.default",
    "torchao.quantize_affine.default",
    "torchao.dequantize_affine.default",
}


def rewritten(model, *inputs, dynamic_shapes=None):
    program = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    module = program.module(check_guards=False)
    changed = affine_quantization_as_arithmetic(module)
    module.recompile()
    return changed, module, [op_name(n) for n in module.graph.nodes]


class AffineWeight(torch.nn.Module):
    """A weight stored as torchao's weight-only configs store it: int8 values, per-block scales."""

    def __init__(self, block_size, bits=4, zero_points=True, out_features=6, in_features=8):
        super().__init__()
        generator = torch.Generator().manual_seed(0)
        low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        shape = (out_features, in_features)
        blocks = [size // block for size, block in zip(shape, block_size, strict=True)]
        self.block_size = block_size
        self.bounds = (low, high)
        self.register_buffer(
            "qdata", torch.randint(low, high + 1, shape, generator=generator, dtype=torch.int8)
        )
        self.register_buffer("scale", torch.rand(blocks, generator=generator) / 10 + 0.01)
        zero = torch.randint(-2, 3, blocks, generator=generator, dtype=torch.int8)
        self.register_buffer("zero_point", zero if zero_points else None)

    def forward(self, x):
        weight = dequantize_affine(
            self.qdata, self.block_size, self.scale, self.zero_point, torch.int8, *self.bounds
        )
        return torch.nn.functional.linear(x, weight)


@pytest.mark.parametrize(
    ("block_size", "zero_points"),
    [([1, 4], True), ([1, 8], True), ([1, 1], True), ([6, 8], True), ([2, 4], False)],
    ids=["groups", "per_channel", "per_element", "per_tensor", "2d_blocks_symmetric"],
)
def test_affine_dequantization_becomes_torchaos_arithmetic_exactly(block_size, zero_points):
    model = AffineWeight(block_size, zero_points=zero_points)
    x = torch.randn(3, 8)
    changed, module, names = rewritten(model, x)
    assert changed
    assert "torchao.dequantize_affine.default" not in names
    assert names.count("aten._to_copy.default") == 1 + zero_points
    assert torch.equal(module(x), model(x))


def test_a_symmetric_weights_zero_points_are_not_subtracted():
    # torchao stores zeros as a symmetric weight's zero points; OpenVINO's
    # decompression runs at half speed with a zero-point Subtract, zeros or not
    model = AffineWeight([1, 4])
    model.get_buffer("zero_point").zero_()
    x = torch.randn(3, 8)
    changed, module, names = rewritten(model, x)
    assert changed
    assert "aten.sub.Tensor" not in names
    assert torch.equal(module(x), model(x))


class DynamicActivation(torch.nn.Module):
    """What torchao's dynamically quantized activations export: qparams chosen per block at run time."""

    def __init__(self, block_size, mapping, keepdim=False, bounds=(-128, 127)):
        super().__init__()
        self.block_size, self.mapping, self.keepdim, self.bounds = (
            block_size,
            mapping,
            keepdim,
            bounds,
        )

    def forward(self, x):
        # torchao's ops themselves, as export records them (its Python functions run
        # them under no_grad, which export would wrap in a submodule)
        torchao = torch.ops.torchao
        block_size = [x.shape[i] if b == "all" else b for i, b in enumerate(self.block_size)]
        scale, zero_point = torchao.choose_qparams_affine(
            x, self.mapping.name, block_size, torch.int8, *self.bounds, keepdim=self.keepdim
        )
        q = torchao.quantize_affine(x, block_size, scale, zero_point, torch.int8, *self.bounds)
        return torchao.dequantize_affine(q, block_size, scale, zero_point, torch.int8, *self.bounds)


def hurtful_inputs(shape):
    """Seeded values, then rows of zeros, of one sign, of ties at half steps and of extremes."""
    generator = torch.Generator().manual_seed(0)
    yield torch.randn(shape, generator=generator) * 3
    yield torch.zeros(shape)
    yield -torch.rand(shape, generator=generator)
    yield torch.rand(shape, generator=generator) + 1
    yield torch.arange(torch.Size(shape).numel(), dtype=torch.float32).reshape(shape) / 2 - 7
    yield torch.full(shape, 3e38) * torch.sign(torch.randn(shape, generator=generator))
    yield torch.full(shape, 1e-39)  # subnormal: the scale clamps to the smallest normal


@pytest.mark.parametrize("mapping", list(MappingType.__members__)[:3])
@pytest.mark.parametrize(
    ("block_size", "keepdim"),
    [([1, "all"], False), ([1, 4], False), (["all", "all"], False), ([1, 4], True)],
    ids=["per_token", "per_group", "per_tensor", "per_group_keepdim"],
)
def test_dynamic_activation_quantization_is_torchaos_arithmetic_exactly(
    mapping, block_size, keepdim
):
    model = DynamicActivation(block_size, MappingType[mapping], keepdim)
    shape = (3, 16)
    changed, module, names = rewritten(model, torch.randn(shape))
    assert changed
    assert not TORCHAO_OPS & set(names)
    assert names.count("aten.amax.default") == 1
    for x in hurtful_inputs(shape):
        torch.testing.assert_close(module(x), model(x), rtol=0, atol=0, equal_nan=True)


def test_mapping_types_are_torchaos():
    assert list(MappingType.__members__)[:3] == [
        "SYMMETRIC",
        "SYMMETRIC_NO_CLIPPING_ERR",
        "ASYMMETRIC",
    ]


def test_per_token_quantization_keeps_a_size_known_at_run_time():
    model = DynamicActivation([1, 1, "all"], MappingType.ASYMMETRIC)
    tokens = torch.export.Dim("tokens", min=1, max=64)
    changed, module, names = rewritten(model, torch.randn(1, 5, 16), dynamic_shapes=({1: tokens},))
    assert changed
    assert not TORCHAO_OPS & set(names)
    for length in (1, 7, 40):
        x = torch.randn(1, length, 16)
        assert torch.equal(module(x), model(x))


def test_a_block_of_a_whole_dimension_known_at_run_time_is_one_block():
    model = DynamicActivation([1, 1, "all"], MappingType.ASYMMETRIC)
    features = torch.export.Dim("features", min=2, max=64)
    changed, module, names = rewritten(
        model, torch.randn(1, 5, 16), dynamic_shapes=({2: features},)
    )
    assert changed
    assert not TORCHAO_OPS & set(names)
    for width in (3, 16, 50):
        x = torch.randn(1, 5, width)
        assert torch.equal(module(x), model(x))


def test_groups_over_a_size_known_at_run_time_are_refused_with_the_reason():
    model = DynamicActivation([1, 4], MappingType.ASYMMETRIC)
    features = torch.export.Dim("features", min=1, max=16)
    program = torch.export.export(model, (torch.randn(3, 16),), dynamic_shapes=({1: 4 * features},))
    refused = [affine_limit(node) for node in program.graph.nodes if op_name(node) in TORCHAO_OPS]
    assert len(refused) == 3
    assert all(reason and "a block of 4 over a dimension of size" in reason for reason in refused)
    module = program.module(check_guards=False)
    assert not affine_quantization_as_arithmetic(module)


class ThreeProjections(torch.nn.Module):
    """Query, key and value of one input, each quantizing it as torchao exports them."""

    def __init__(self):
        super().__init__()
        self.quantized = DynamicActivation([1, "all"], MappingType.ASYMMETRIC)

    def forward(self, x):
        return self.quantized(x) * 2, self.quantized(x) + 1, self.quantized(x * 3)


def test_repeated_quantizations_of_one_input_are_computed_once():
    model = ThreeProjections()
    x = torch.randn(3, 16)
    changed, module, names = rewritten(model, x)
    assert changed
    assert names.count("aten.amax.default") == 2  # x, and x * 3
    for value in hurtful_inputs((3, 16)):
        torch.testing.assert_close(module(value), model(value), rtol=0, atol=0, equal_nan=True)
