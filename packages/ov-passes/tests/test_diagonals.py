"""diagonal_copy becomes a gather that gives PyTorch's diagonal."""

import pytest
import torch

from ov_passes import diagonals_as_gathers


@pytest.mark.parametrize(
    "offset, dim1, dim2", [(0, 0, 1), (1, 0, 1), (-2, 0, 1), (2, 2, 0), (0, -1, -2), (9, 0, 1)]
)
def test_gather_equals_the_diagonal(offset, dim1, dim2):
    class Diagonal(torch.nn.Module):
        def forward(self, x):
            return torch.ops.aten.diagonal_copy(x, offset, dim1, dim2) * 2

    x = torch.arange(60.0).reshape(3, 4, 5)
    module = torch.export.export(Diagonal(), (x,)).module()
    assert diagonals_as_gathers(module)
    module.recompile()
    assert not any(n.target == torch.ops.aten.diagonal_copy.default for n in module.graph.nodes)
    expected = torch.diagonal(x, offset, dim1, dim2) * 2
    got = module(x)
    assert got.shape == expected.shape and torch.equal(got, expected)
