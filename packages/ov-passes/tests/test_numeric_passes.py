"""The integer and NaN rewrites compute what the original graph computes, in PyTorch too."""

import pytest
import torch

from ov_passes import (
    DEFAULT_PASSES,
    call_function,
    greater_as_less,
    integer_floor_division_by_truncation,
    run_passes,
)


def rewritten(function, *inputs, graph_pass):
    class Wrapper(torch.nn.Module):
        def forward(self, *args):
            return function(*args)

    module = torch.export.export(Wrapper(), inputs).module(check_guards=False)
    assert graph_pass(module)
    module.recompile()
    return module


def targets(module):
    return {n.target for n in module.graph.nodes if n.op == "call_function"}


DIVIDENDS = torch.tensor([-7, 7, -1, 0, 5, -9, 2**24 + 1, -(2**24) - 3, 2**31 - 1, -(2**31)])
DIVISORS = torch.tensor([3, 3, 3, 2, -2, -4, 5, -7, -1, 7])


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=str)
@pytest.mark.parametrize(
    "function",
    [lambda a, b: a // b, lambda a, b: torch.div(a, b, rounding_mode="floor")],
    ids=["floor_divide", "div_floor"],
)
def test_integer_floor_division_uses_truncation_and_stays_exact(dtype, function):
    a, b = DIVIDENDS.to(dtype), DIVISORS.to(dtype)
    module = rewritten(function, a, b, graph_pass=integer_floor_division_by_truncation)
    assert torch.ops.aten.div.Tensor_mode in targets(module)
    assert torch.ops.aten.remainder.Tensor not in targets(module)
    assert torch.equal(module(a, b), function(a, b))


@pytest.mark.parametrize("divisor", [3, -3])
def test_integer_floor_division_by_a_number(divisor):
    a = DIVIDENDS.to(torch.int32)
    module = rewritten(lambda x: x // divisor, a, graph_pass=integer_floor_division_by_truncation)
    assert torch.equal(module(a), a // divisor)


def test_float_floor_division_is_left_alone():
    class Wrapper(torch.nn.Module):
        def forward(self, x):
            return x // 3

    module = torch.export.export(Wrapper(), (torch.randn(4),)).module(check_guards=False)
    assert not integer_floor_division_by_truncation(module)


NAN_LEFT = torch.tensor([1.0, float("nan"), 2.0, float("nan"), -0.0, float("inf")])
NAN_RIGHT = torch.tensor([0.0, 1.0, float("nan"), float("nan"), 0.0, float("inf")])


@pytest.mark.parametrize(
    "function",
    [lambda a, b: a > b, lambda a, b: a >= b, lambda a, b: a > 0.5, lambda a, b: a >= 0],
    ids=["gt", "ge", "gt_number", "ge_number"],
)
def test_greater_becomes_less_and_keeps_its_answers(function):
    module = rewritten(function, NAN_LEFT, NAN_RIGHT, graph_pass=greater_as_less)
    assert not targets(module) & {
        torch.ops.aten.gt.Tensor,
        torch.ops.aten.ge.Tensor,
        torch.ops.aten.gt.Scalar,
        torch.ops.aten.ge.Scalar,
    }
    assert torch.equal(module(NAN_LEFT, NAN_RIGHT), function(NAN_LEFT, NAN_RIGHT))


def test_integer_comparisons_are_left_alone():
    class Wrapper(torch.nn.Module):
        def forward(self, x):
            return x > 2

    module = torch.export.export(Wrapper(), (torch.arange(4),)).module(check_guards=False)
    assert not greater_as_less(module)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=str)
def test_wide_integer_comparisons_compare_parts_float32_holds_exactly(op, dtype):
    from ov_passes import exact_integer_comparisons

    compare = getattr(torch, op)
    a = torch.tensor([2**24 + 1, 5, -3, 0, -(2**31), 2**31 - 1, 65536], dtype=dtype)
    b = torch.tensor([2**24, 5, 7, -(2**24), 2**31 - 1, -(2**31), 65535], dtype=dtype)
    module = rewritten(
        lambda x, y: (compare(x, y), compare(x, 2**24)),
        a,
        b,
        graph_pass=exact_integer_comparisons,
    )
    assert torch.ops.aten.sub.Tensor in targets(module)
    placeholders = set(module.graph.find_nodes(op="placeholder"))
    compared = [n for n in module.graph.nodes if str(n.target).startswith(f"aten.{op}.")]
    assert all(not placeholders & set(n.all_input_nodes) for n in compared)
    got, want = module(a, b), (compare(a, b), compare(a, 2**24))
    assert all(torch.equal(g, w) for g, w in zip(got, want, strict=True))


def test_float_and_narrow_integer_comparisons_are_left_alone():
    from ov_passes import exact_integer_comparisons

    class Wrapper(torch.nn.Module):
        def forward(self, x, y, z):
            return x == 0.5, y < 3, z == x.int()

    inputs = (
        torch.randn(3),
        torch.tensor([1, 2, 3], dtype=torch.int8),
        torch.ones(3, dtype=torch.int32),
    )
    module = torch.export.export(Wrapper(), inputs).module(check_guards=False)
    assert exact_integer_comparisons(module)  # only z == x.int() is rewritten
    assert sum(n.target == torch.ops.aten.sub.Tensor for n in module.graph.nodes) == 1


def test_every_node_a_pass_creates_is_typed_for_the_passes_after_it():
    class FloorDivide(torch.nn.Module):
        def forward(self, a, b):
            return a // b

    a, b = DIVIDENDS.to(torch.int32), DIVISORS.to(torch.int32)
    module = torch.export.export(FloorDivide(), (a, b)).module(check_guards=False)
    assert run_passes(module, DEFAULT_PASSES)
    calls = [n for n in module.graph.nodes if n.op == "call_function"]
    assert all(isinstance(n.meta.get("val"), torch.Tensor) for n in calls)
    # The floor-division rewrite compares its product with the dividend; the
    # comparison rewrite that runs after it sees their dtypes and makes it exact.
    compared = [
        arg.meta["val"].dtype
        for n in calls
        if n.target == torch.ops.aten.ne.Tensor
        for arg in n.all_input_nodes
    ]
    assert compared and set(compared) == {torch.bool}  # the signs, not the integers
    assert torch.ops.aten.ne.Scalar in targets(module)
    assert torch.equal(module(a, b), a // b)


def test_a_node_without_typed_inputs_is_refused():
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    with pytest.raises(ValueError, match=r"cannot type neg.*\['x'\] have no meta\['val'\]"):
        call_function(graph, torch.ops.aten.neg.default, (x,))
