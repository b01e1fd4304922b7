"""A weight broadcast over a batched product becomes one mm with the weight itself."""

import torch

from ov_passes import broadcast_weights_as_matmul

aten = torch.ops.aten


class BroadcastWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(4, 6))

    def forward(self, x):
        expanded = aten.expand.default(self.weight.t(), [x.shape[0], 6, 4])
        return aten.bmm.default(x, expanded), aten.bmm.default(x, x.transpose(1, 2))


def test_a_bmm_of_a_broadcast_weight_becomes_mm_and_keeps_its_result():
    x = torch.randn(3, 5, 6)
    model = BroadcastWeight()
    module = torch.export.export(model, (x,)).module(check_guards=False)
    assert broadcast_weights_as_matmul(module)
    module.recompile()
    targets = [node.target for node in module.graph.nodes if node.op == "call_function"]
    assert targets.count(aten.mm.default) == 1
    assert targets.count(aten.bmm.default) == 1  # the product of two activations stays
    assert aten.expand.default not in targets
    for got, expected in zip(module(x), model(x), strict=True):
        torch.testing.assert_close(got, expected)
