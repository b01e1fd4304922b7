import pytest
import torch

from ov_passes import avg_pool_divisors_as_pytorch


class Pool(torch.nn.Module):
    def __init__(self, **options):
        super().__init__()
        self.options = options

    def forward(self, x):
        return torch.nn.functional.avg_pool2d(x, 3, 2, 1, **self.options)


def test_ceil_mode_pooling_that_counts_padding_is_rebuilt_with_the_same_values():
    x = torch.randn(2, 3, 9, 8)
    module = torch.export.export(Pool(ceil_mode=True), (x,)).module(check_guards=False)
    assert avg_pool_divisors_as_pytorch(module)
    module.recompile()
    pools = [n for n in module.graph.nodes if n.target == torch.ops.aten.avg_pool2d.default]
    assert [n.args[5] for n in pools] == [False]  # count_include_pad
    assert any(n.target == torch.ops.aten.mul.Tensor for n in module.graph.nodes)
    assert torch.allclose(module(x), Pool(ceil_mode=True)(x), atol=1e-6)


@pytest.mark.parametrize("options", [{}, {"ceil_mode": True, "count_include_pad": False}])
def test_other_pooling_is_left_alone(options):
    module = torch.export.export(Pool(**options), (torch.randn(1, 1, 9, 8),)).module()
    assert not avg_pool_divisors_as_pytorch(module)
