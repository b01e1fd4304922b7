"""logical_and, logical_or and logical_xor become bitwise ops of truth values, with PyTorch's answers."""

import pytest
import torch

from ov_passes import logical_ops_as_bitwise

FLOATS = torch.tensor([0.0, -0.0, 1.5, float("nan"), -2.0, 0.0])
INTS = torch.tensor([0, 3, 0, -1, 7, 0], dtype=torch.int32)


@pytest.mark.parametrize("op", [torch.logical_and, torch.logical_or, torch.logical_xor])
def test_rewrite_gives_pytorchs_answers(op):
    class Logical(torch.nn.Module):
        def forward(self, a, b):
            return op(a, b), op(a > 0, b), op(a, a < 1)

    module = torch.export.export(Logical(), (FLOATS, INTS)).module()
    assert logical_ops_as_bitwise(module)
    module.recompile()
    targets = {n.target for n in module.graph.nodes if n.op == "call_function"}
    assert not targets & {
        torch.ops.aten.logical_and.default,
        torch.ops.aten.logical_or.default,
        torch.ops.aten.logical_xor.default,
    }
    for got, expected in zip(module(FLOATS, INTS), Logical()(FLOATS, INTS), strict=True):
        assert got.dtype == torch.bool and torch.equal(got, expected)
