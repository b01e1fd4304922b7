"""The NaN rewrite keeps every result PyTorch gives, NaN, inf and indices included."""

import pytest
import torch
from torch.nn import functional

from ov_passes import nan_through_clamps_and_maxima, run_passes

NAN, INF = float("nan"), float("inf")
X = torch.tensor([[NAN, -1.0, 2.0, 0.5], [1.0, NAN, -INF, 4.0], [INF, -3.0, 0.0, -0.0]])
ROWS = torch.tensor(
    [[INF, 1.0, 2.0], [-INF, -INF, -INF], [-INF, 1.0, 2.0], [INF, INF, 0.0], [1.0, 2.0, 3.0]]
)

FUNCTIONS = {
    "relu": torch.relu,
    "clamp": lambda x: x.clamp(-0.5, 1.0),
    "hardtanh": functional.hardtanh,
    "exp": torch.exp,
    "maximum": lambda x: torch.maximum(x, x.flip(1)),
    "amax": lambda x: (x.amax(1), x.amin(), x.amax((0, 1), keepdim=True)),
    "max_dim": lambda x: x.max(1),
    "min_dim_kept": lambda x: x.min(0, keepdim=True),
    "argmax": lambda x: (x.argmax(1), x.argmin(), x.argmax(0, keepdim=True)),
    "softmax": lambda x: (x.softmax(1), x.log_softmax(0)),
    "max_pool": lambda x: functional.max_pool2d(x[None], 2, 1, return_indices=True),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_rewrite_keeps_pytorchs_results(name):
    function = FUNCTIONS[name]

    class Wrapper(torch.nn.Module):
        def forward(self, x):
            return function(x)

    module = torch.export.export(Wrapper(), (X,)).module(check_guards=False)
    assert nan_through_clamps_and_maxima(module)
    module.recompile()
    wheres = [n for n in module.graph.nodes if n.target is torch.ops.aten.where.self]
    assert wheres or name == "relu"
    for got, expected in zip(
        torch.utils._pytree.tree_leaves(module(X)),
        torch.utils._pytree.tree_leaves(function(X)),
        strict=True,
    ):
        torch.testing.assert_close(got, expected, equal_nan=True)


def test_relu_becomes_a_maximum_with_zero_first_and_no_select():
    class Wrapper(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x)

    module = torch.export.export(Wrapper(), (X,)).module(check_guards=False)
    assert nan_through_clamps_and_maxima(module)
    module.recompile()
    targets = [n.target for n in module.graph.nodes if n.op == "call_function"]
    assert targets == [torch.ops.aten.scalar_tensor.default, torch.ops.aten.maximum.default]
    maximum = next(n for n in module.graph.nodes if n.target is torch.ops.aten.maximum.default)
    assert maximum.args[0].target is torch.ops.aten.scalar_tensor.default  # zero first
    torch.testing.assert_close(module(X), torch.relu(X), equal_nan=True)


def test_a_relu_that_feeds_only_quantizes_stays_a_relu():
    from torch.ao.quantization.fx._decomposed import quantized_decomposed_lib  # noqa: F401

    quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default

    class Wrapper(torch.nn.Module):
        def forward(self, x):
            quantized = quantize(torch.relu(x), 0.01, -128, -128, 127, torch.int8)
            return quantized, torch.relu(x * 2)

    module = torch.export.export(Wrapper(), (X,)).module(check_guards=False)
    assert nan_through_clamps_and_maxima(module)  # the second relu, read by no quantize
    targets = [n.target for n in module.graph.nodes if n.op == "call_function"]
    assert targets.count(torch.ops.aten.relu.default) == 1
    assert targets.count(torch.ops.aten.maximum.default) == 1
    relu = next(n for n in module.graph.nodes if n.target is torch.ops.aten.relu.default)
    assert [user.target for user in relu.users] == [quantize]


def test_integer_and_other_ops_are_left_alone():
    class Wrapper(torch.nn.Module):
        def forward(self, x, i):
            return torch.sin(x), i.clamp(0, 3), i.amax()

    inputs = (X, torch.tensor([1, 5, -2]))
    module = torch.export.export(Wrapper(), inputs).module(check_guards=False)
    assert not nan_through_clamps_and_maxima(module)


def test_only_float_operands_of_a_float_maximum_are_checked_for_nan():
    class Wrapper(torch.nn.Module):
        def forward(self, mask, x):
            return torch.maximum(mask, x)

    inputs = (torch.tensor([True, False, True]), torch.tensor([NAN, -1.0, 0.5]))
    module = torch.export.export(Wrapper(), inputs).module(check_guards=False)
    assert nan_through_clamps_and_maxima(module)
    module.recompile()
    checked = [
        n.args[0].name for n in module.graph.nodes if n.target is torch.ops.aten.isnan.default
    ]
    assert checked == ["x"]
    torch.testing.assert_close(module(*inputs), Wrapper()(*inputs), equal_nan=True)


def test_run_passes_rewrites_the_branches_of_a_cond():
    class Wrapper(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.amax() > 0, torch.exp, lambda x: x.clamp(0.0, 1.0), (x,))

    inputs = (torch.tensor([NAN, 1.0, -2.0]),)
    module = torch.export.export(Wrapper(), inputs).module(check_guards=False)
    assert run_passes(module, [nan_through_clamps_and_maxima])
    branches = [m for name, m in module.named_children() if isinstance(m, torch.fx.GraphModule)]
    assert len(branches) == 2
    for branch in branches:
        assert branch.graph.find_nodes(op="call_function", target=torch.ops.aten.where.self)
    torch.testing.assert_close(module(*inputs), Wrapper()(*inputs), equal_nan=True)


def test_softmax_rows_with_inf_or_only_minus_inf_are_nan_as_in_pytorch():
    class Softmaxes(torch.nn.Module):
        def forward(self, x):
            return x.softmax(-1), x.log_softmax(-1), x[:, :1].log_softmax(-1)

    module = torch.export.export(Softmaxes(), (ROWS,)).module(check_guards=False)
    assert nan_through_clamps_and_maxima(module)
    module.recompile()
    for got, expected in zip(module(ROWS), Softmaxes()(ROWS), strict=True):
        torch.testing.assert_close(got, expected, equal_nan=True)
