"""A mismatch that is each op's own rounding, amplified by the graph, told apart from a wrong op.

The delegate's intermediate values are given here by a stand-in for the lowered
method, so each case is exactly the delegate result it names.
"""

import math

import pytest
import torch

from ov_tests.graph_fuzz import stepwise
from ov_tests.graph_fuzz.draw import Graph, value_names


class _Delegate:
    def __init__(self, intermediates):
        self.intermediates = intermediates

    def execute(self, values):
        return list(self.intermediates)


@pytest.fixture
def delegate_gives(monkeypatch):
    def give(*intermediates):
        monkeypatch.setattr(stepwise, "loaded_method", lambda program: _Delegate(intermediates))

    return give


def _chain(dtype, shape, *lines):
    ops = [line.split(" = ", 1)[1].split("(", 1)[0] for line in lines]
    names = [line.split(" = ", 1)[0] for line in lines]
    inputs = sorted({name for line in lines for name in value_names(line) if name[0] == "x"})
    return Graph(
        inputs=[(name, dtype, shape) for name in inputs],
        lines=list(lines),
        outputs=names[-1:],
        ops=ops,
    )


def _cos_of_exp():
    return _chain(torch.float32, (1,), "v0 = aten.exp.default(x0)", "v1 = aten.cos.default(v0)")


def test_a_unit_off_amplified_by_the_next_op_is_rounding(delegate_gives):
    # Graph 3,211 of seed 0: float32 neighbours of exp(80) are 2**92 apart, so cos reads anything.
    x = torch.tensor([80.0])
    exp = torch.nextafter(torch.exp(x), torch.tensor(math.inf))
    cos = torch.cos(exp)
    assert abs(cos - torch.cos(torch.exp(x))) > 1e-3
    delegate_gives(exp, cos)
    assert stepwise.rounding_amplified(_cos_of_exp(), [x], [cos])


def test_an_op_off_by_more_than_its_tolerance_is_not_rounding(delegate_gives):
    x = torch.tensor([80.0])
    exp = torch.exp(x) * 1.001
    delegate_gives(exp, torch.cos(exp))
    assert not stepwise.rounding_amplified(_cos_of_exp(), [x], [torch.cos(exp)])


def test_outputs_other_than_the_first_lowering_gave_are_not_explained(delegate_gives):
    x = torch.tensor([80.0])
    exp = torch.nextafter(torch.exp(x), torch.tensor(math.inf))
    delegate_gives(exp, torch.cos(exp))
    assert not stepwise.rounding_amplified(_cos_of_exp(), [x], [torch.cos(exp) + 1])


def test_a_zero_of_the_wrong_sign_is_wrong_unless_ieee_leaves_it_open(delegate_gives):
    # Graph 2,274 of seed 0: OpenVINO's negation of +0 gave +0 with a dynamic size.
    zero = torch.tensor([0.0])
    negated = _chain(
        torch.float32, (1,), "v0 = aten.neg.default(x0)", "v1 = aten.reciprocal.default(v0)"
    )
    delegate_gives(zero, torch.tensor([math.inf]))
    assert not stepwise.rounding_amplified(negated, [zero], [torch.tensor([math.inf])])
    # The minimum of +0 and -0 may be either.
    smallest = Graph(
        inputs=[("x0", torch.float32, (1,)), ("x1", torch.float32, (1,))],
        lines=["v0 = aten.minimum.default(x0, x1)", "v1 = aten.reciprocal.default(v0)"],
        outputs=["v1"],
        ops=["aten.minimum.default", "aten.reciprocal.default"],
    )
    eager = torch.minimum(zero, -zero)
    other = -eager
    delegate_gives(other, 1 / other)
    assert stepwise.rounding_amplified(smallest, [zero, -zero], [1 / other])


def test_a_sum_in_another_order_is_rounding(delegate_gives):
    # Graph 3,404 of seed 0: terms near 1e38 cancel, and the small ones are lost in some orders.
    x = torch.tensor([1e38, 1.0, -1e38, 3.0])
    graph = _chain(torch.float32, (4,), "v0 = aten.sum.dim_IntList(x0, [0])")
    other = torch.tensor(4.0) if x.sum() != 4 else torch.tensor(3.0)
    delegate_gives(other)
    assert stepwise.rounding_amplified(graph, [x], [other])
    # Off by more than n * eps * sum(|x|) is wrong.
    delegate_gives(torch.tensor(1e33))
    assert not stepwise.rounding_amplified(graph, [x], [torch.tensor(1e33)])


def test_a_product_in_another_order_may_leave_the_range(delegate_gives):
    # Graph 488 of seed 1: inf times factors whose partial product underflows is inf in eager's
    # order and NaN in OpenVINO's (0 * inf); PyTorch's own kernel gives NaN for 32 such factors.
    graph = _chain(torch.float32, (4,), "v0 = aten.prod.default(x0)")
    x = torch.tensor([math.inf, 1e-30, 1e-30, -2.0])
    assert torch.prod(x) == -math.inf
    for reordered in (math.nan, -math.inf):
        delegate_gives(torch.tensor(reordered))
        assert stepwise.rounding_amplified(graph, [x], [torch.tensor(reordered)])
    # The sign of an infinity is the product's in any order; a finite result is wrong.
    for wrong in (math.inf, 0.0, 1.0):
        delegate_gives(torch.tensor(wrong))
        assert not stepwise.rounding_amplified(graph, [x], [torch.tensor(wrong)])
    # Factors that stay in range give one product in any order.
    x = torch.tensor([math.inf, 0.5, 0.5, -2.0])
    delegate_gives(torch.tensor(math.nan))
    assert not stepwise.rounding_amplified(graph, [x], [torch.tensor(math.nan)])


def test_a_product_along_a_dim_in_another_order_leaves_the_range(delegate_gives):
    # 1e30 * 1e30 overflows and 1e-20 ** 3 underflows first in some orders; the product is -1.
    graph = _chain(torch.float32, (2, 5), "v0 = aten.prod.dim_int(x0, 1)")
    x = torch.tensor([[1e30, 1e-20, -1e-20, 1e-20, 1e30], [2.0, 3.0, 4.0, 1.0, 1.0]])
    for reordered in (-0.0, -math.inf, math.nan):
        got = torch.tensor([reordered, 24.0])
        delegate_gives(got)
        assert stepwise.rounding_amplified(graph, [x], [got])
    for wrong in ([0.0, 24.0], [math.inf, 24.0], [-0.0, 25.0]):  # a sign no order gives
        delegate_gives(torch.tensor(wrong))
        assert not stepwise.rounding_amplified(graph, [x], [torch.tensor(wrong)])
