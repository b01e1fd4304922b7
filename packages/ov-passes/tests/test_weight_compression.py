import pytest
import torch

from ov_passes import op_name, output_scales_onto_weights

aten = torch.ops.aten


def rewritten(graph_pass, model, *inputs):
    module = torch.export.export(model, inputs).module(check_guards=False)
    changed = graph_pass(module)
    module.recompile()
    return changed, module, [op_name(n) for n in module.graph.nodes]


class ScaledAfterProduct(torch.nn.Module):
    """torchao's Int8WeightOnlyConfig as edge dialect has it: the scale after the product."""

    def __init__(self, transposed=True):
        super().__init__()
        generator = torch.Generator().manual_seed(1)
        shape = (5, 16) if transposed else (16, 5)
        self.transposed = transposed
        self.register_buffer(
            "qdata", torch.randint(-128, 128, shape, generator=generator, dtype=torch.int8)
        )
        self.register_buffer("scale", torch.rand(5, generator=generator) / 50)

    def forward(self, x):
        weight = aten.permute_copy(self.qdata, [1, 0]) if self.transposed else self.qdata
        product = aten.mm(x, aten._to_copy(weight, dtype=torch.float32))
        return product * self.scale


@pytest.mark.parametrize("transposed", [True, False])
def test_an_output_scale_moves_onto_the_integer_weight(transposed):
    model = ScaledAfterProduct(transposed)
    x = torch.randn(4, 16)
    changed, module, names = rewritten(output_scales_onto_weights, model, x)
    assert changed
    # Convert reads the integer weight, the scale follows it, then the transpose.
    order = [n for n in names if n.startswith("aten.")]
    expected = ["aten._to_copy.default", "aten.view_copy.default", "aten.mul.Tensor"]
    assert order[:3] == expected
    assert order[3:] == (["aten.permute_copy.default"] if transposed else []) + ["aten.mm.default"]
    torch.testing.assert_close(module(x), model(x), rtol=1e-6, atol=1e-6)


class ScaledFloatProduct(torch.nn.Module):
    def forward(self, x, w, scale):
        return aten.mm(x, w) * scale


class ScaledPerRow(torch.nn.Module):
    def forward(self, x, w, scale):
        return aten.mm(x, aten._to_copy(w, dtype=torch.float32)) * scale


@pytest.mark.parametrize(
    ("model", "inputs"),
    [
        (ScaledFloatProduct(), (torch.randn(4, 16), torch.randn(16, 5), torch.rand(5))),
        (
            ScaledPerRow(),
            (torch.randn(4, 16), torch.ones(16, 5, dtype=torch.int8), torch.rand(4, 1)),
        ),
    ],
    ids=["float_weight", "per_row_scale"],
)
def test_other_scaled_products_are_left_alone(model, inputs):
    changed, _, _ = rewritten(output_scales_onto_weights, model, *inputs)
    assert not changed
