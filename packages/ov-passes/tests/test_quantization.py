import pytest
import torch
from torch.ao.quantization.fx._decomposed import quantized_decomposed_lib  # noqa: F401

from ov_passes import op_name, unpaired_quantization_as_arithmetic

ops = torch.ops.quantized_decomposed


class Paired(torch.nn.Module):
    def forward(self, x):
        q = ops.quantize_per_tensor(x, 0.05, 2, -128, 127, torch.int8)
        return ops.dequantize_per_tensor(q, 0.05, 2, -128, 127, torch.int8)


class Unpaired(torch.nn.Module):
    """A quantize whose int8 output leaves, and a dequantize of an int8 input."""

    def forward(self, x, q):
        out = ops.quantize_per_tensor(x, 0.05, 2, -128, 127, torch.int8)
        return out, ops.dequantize_per_tensor(q, 0.05, 2, -128, 127, torch.int8) + 1


class PerChannelWeight(torch.nn.Module):
    """A folded int8 weight dequantized per output channel, as ``convert_pt2e`` leaves it."""

    def __init__(self):
        super().__init__()
        self.register_buffer("weight", torch.randint(-127, 128, (4, 3), dtype=torch.int8))
        self.register_buffer("scales", torch.rand(4) / 50)
        self.register_buffer("zero_points", torch.tensor([0, 1, -1, 2]))

    def forward(self, x):
        weight = ops.dequantize_per_channel(
            self.weight, self.scales, self.zero_points, 0, -127, 127, torch.int8
        )
        return torch.nn.functional.linear(x, weight)


def rewritten(model, *inputs):
    module = torch.export.export(model, inputs).module(check_guards=False)
    changed = unpaired_quantization_as_arithmetic(module)
    module.recompile()
    return changed, module, {op_name(n) for n in module.graph.nodes}


def test_a_quantize_followed_by_its_dequantize_is_left_for_the_frontend():
    changed, _, names = rewritten(Paired(), torch.randn(8))
    assert not changed
    assert "quantized_decomposed.quantize_per_tensor.default" in names


@pytest.mark.parametrize("seed", range(3))
def test_unpaired_nodes_become_pytorchs_arithmetic_exactly(seed):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(1000, generator=generator) * 5
    # Values at ties of the rounding, and past the int8 range.
    x[:4] = torch.tensor([0.025, -0.075, 100.0, -100.0])
    q = torch.randint(-128, 128, (1000,), generator=generator, dtype=torch.int8)
    changed, module, names = rewritten(Unpaired(), x, q)
    assert changed
    assert not any(name.startswith("quantized_decomposed") for name in names)
    for got, want in zip(module(x, q), Unpaired()(x, q), strict=True):
        assert got.dtype == want.dtype
        assert torch.equal(got, want)


def test_a_per_channel_weight_is_dequantized_along_its_axis():
    torch.manual_seed(0)
    model, x = PerChannelWeight(), torch.randn(2, 3)
    changed, module, names = rewritten(model, x)
    assert changed
    assert "quantized_decomposed.dequantize_per_channel.default" not in names
    assert torch.equal(module(x), model(x))


class FakeQuantized(torch.nn.Module):
    scale: torch.Tensor
    zero_point: torch.Tensor
    scales: torch.Tensor
    zero_points: torch.Tensor

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor(0.1))
        self.register_buffer("zero_point", torch.tensor(3, dtype=torch.int32))
        self.register_buffer("scales", torch.tensor([0.1, 0.2]))
        self.register_buffer("zero_points", torch.tensor([0, 5], dtype=torch.int32))

    def forward(self, x):
        a = torch.fake_quantize_per_tensor_affine(x, 0.05, 2, -128, 127)
        b = torch.fake_quantize_per_tensor_affine(x, self.scale, self.zero_point, 0, 255)
        c = torch.fake_quantize_per_channel_affine(x, self.scales, self.zero_points, 1, -128, 127)
        wide = torch.fake_quantize_per_tensor_affine(x, 0.05, 0, -1000, 1000)
        return a, b, c, wide


def test_fake_quant_ops_become_quantize_dequantize_pairs_of_int8_or_uint8():
    from ov_passes import fake_quantize_as_pairs

    x = torch.randn(3, 2) * 10
    module = torch.export.export(FakeQuantized(), (x,)).module(check_guards=False)
    assert fake_quantize_as_pairs(module)
    module.recompile()
    names = [op_name(n) for n in module.graph.nodes if n.op == "call_function"]
    assert names.count("quantized_decomposed.quantize_per_tensor.default") == 2
    assert names.count("quantized_decomposed.quantize_per_channel.default") == 1
    # A range wider than 8 bits has no integer type here: left as it is.
    assert names.count("aten.fake_quantize_per_tensor_affine.default") == 1
    dtypes = [n.args[-1] for n in module.graph.nodes if op_name(n).startswith("quantized_")]
    assert set(dtypes) == {torch.int8, torch.uint8}
    for got, want in zip(module(x), FakeQuantized()(x), strict=True):
        assert torch.allclose(got, want, rtol=0, atol=1e-6)
