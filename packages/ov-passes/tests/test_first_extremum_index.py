import pytest
import torch

from ov_passes import (
    DEFAULT_PASSES,
    extremum_and_index_as_reduction_and_arg,
    nan_through_clamps_and_maxima,
)

aten = torch.ops.aten
TIES = torch.tensor([[1.0, 3.0, 3.0, 0.0, 3.0], [2.0, 2.0, -1.0, -1.0, 2.0]])


class Extrema(torch.nn.Module):
    def forward(self, x):
        values, indices = torch.max(x, dim=1)
        low = torch.min(x, dim=0, keepdim=True)
        return values, indices, low.values, low.indices, torch.max(x, dim=-1).indices


def test_max_and_min_over_a_dim_become_a_reduction_and_an_arg_reduction():
    module = torch.export.export(Extrema(), (TIES,)).module(check_guards=False)
    assert extremum_and_index_as_reduction_and_arg(module)
    module.recompile()
    targets = [n.target for n in module.graph.nodes if n.op == "call_function"]
    assert aten.max.dim not in targets and aten.min.dim not in targets
    assert targets.count(aten.argmax.default) == 2 and targets.count(aten.argmin.default) == 1
    assert targets.count(aten.amax.default) == 1  # the last max's values are not read
    for got, expected in zip(module(TIES), Extrema()(TIES), strict=True):
        assert torch.equal(got, expected)


def test_the_split_runs_before_the_nan_pass_which_then_keeps_nan_and_its_first_index():
    order = list(DEFAULT_PASSES)
    assert order.index(extremum_and_index_as_reduction_and_arg) < order.index(
        nan_through_clamps_and_maxima
    )
    x = TIES.clone()
    x[0, 2] = x[0, 4] = float("nan")
    module = torch.export.export(Extrema(), (x,)).module(check_guards=False)
    extremum_and_index_as_reduction_and_arg(module)
    nan_through_clamps_and_maxima(module)
    module.recompile()
    for got, expected in zip(module(x), Extrema()(x), strict=True):
        torch.testing.assert_close(got, expected, equal_nan=True)


@pytest.mark.parametrize("keepdim", [False, True])
def test_a_max_whose_indices_alone_are_read_builds_only_the_argmax(keepdim):
    class Indices(torch.nn.Module):
        def forward(self, x):
            return torch.max(x, 1, keepdim).indices

    module = torch.export.export(Indices(), (TIES,)).module(check_guards=False)
    assert extremum_and_index_as_reduction_and_arg(module)
    module.recompile()
    targets = [n.target for n in module.graph.nodes if n.op == "call_function"]
    assert targets == [aten.argmax.default]
    assert torch.equal(module(TIES), Indices()(TIES))
