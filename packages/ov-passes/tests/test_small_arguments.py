"""log1p, expm1, erf and elu keep float32's relative precision near zero once rewritten."""

import pytest
import torch
from torch.nn import functional

from ov_passes import small_arguments_by_series

TINY = torch.tensor([1e-30, -1e-30, 1e-12, -3e-8, 1e-4, -0.05, 0.06, -0.07])
WIDE = torch.tensor([-0.99, -0.5, 0.1, 0.125, 0.2, 1.0, 3.0, 50.0, -50.0, 1e30])
SPECIAL = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan")])


def rewritten(function):
    class Wrapper(torch.nn.Module):
        def forward(self, x):
            return function(x)

    dynamic = {"x": {0: torch.export.Dim.DYNAMIC}}
    module = torch.export.export(Wrapper(), (TINY,), dynamic_shapes=dynamic).module()
    before = {n.target for n in module.graph.nodes if n.op == "call_function"}
    assert small_arguments_by_series(module)
    module.recompile()
    return module, before


@pytest.mark.parametrize(
    "function, op",
    [
        (torch.log1p, torch.ops.aten.log1p.default),
        (torch.expm1, torch.ops.aten.expm1.default),
        (torch.erf, torch.ops.aten.erf.default),
        (functional.elu, torch.ops.aten.elu.default),
        (lambda x: torch.ops.aten.elu(x, 1.67, 1.05, 2.0), torch.ops.aten.elu.default),
        (lambda x: functional.elu(x, alpha=0.5), torch.ops.aten.elu.default),
    ],
    ids=["log1p", "expm1", "erf", "elu", "elu_scaled", "elu_alpha"],
)
def test_rewrite_equals_pytorch_to_float32_precision(function, op):
    module, before = rewritten(function)
    assert op in before
    for x in (TINY, WIDE):
        expected = function(x.double())
        got = module(x)
        assert torch.allclose(got.double(), expected, rtol=2e-6, atol=0, equal_nan=True), (x, got)
    domain = (
        SPECIAL if function is not torch.log1p else torch.cat([SPECIAL, torch.tensor([-1.0, -2.0])])
    )
    torch.testing.assert_close(module(domain), function(domain), equal_nan=True)


def test_integer_and_other_ops_are_left_alone():
    class Wrapper(torch.nn.Module):
        def forward(self, x):
            return torch.exp(x) + torch.sin(x)

    module = torch.export.export(Wrapper(), (TINY,)).module(check_guards=False)
    assert not small_arguments_by_series(module)
