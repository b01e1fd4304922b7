"""Op suite: each case through the whole pipeline, compared with eager on edge values.

Integer cases use values past 2**24 and negatives, where OpenVINO's CPU
plugin differs from PyTorch unless the backend steps in.
"""

from collections.abc import Callable
from typing import Any

import pytest
import torch

from ov_tests import check_program
from ov_tests.models import Function, MultivariateNormalLogProb

I32 = torch.int32
NEGATIVES = torch.tensor([-7, 7, -1, 0, 5, -9, 2**24 + 1, -(2**24) - 3], dtype=I32)
DIVISORS = torch.tensor([3, 3, 3, 2, -2, -4, 5, -7], dtype=I32)
PAST_2_24 = torch.tensor([2**24, 1, 1, -5], dtype=I32)
NEGATIVES_2D = torch.tensor([[-2.5, 0.0, 3.0], [7.0, -1.5, 0.25]])
FLOATS = torch.tensor([-2.5, -0.0, 0.0, 1.5, 3.25, -7.75, 1e-30, 65504.0])


def bounded(a: torch.Tensor) -> torch.Tensor:
    """``a`` clamped to +-2**24, where OpenVINO divides integers exactly: the division is delegated."""
    return a.clamp(-(2**24), 2**24)


def small(b: torch.Tensor) -> torch.Tensor:
    """A divisor within -100 .. 100 (no value changes)."""
    return b.clamp(-100, 100)


CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...], tuple[str, ...]]] = {
    # name: (function, inputs, kernels allowed to stay on the CPU)
    # Integer division is delegated where its operands are bounded within 2**24.
    "floor_divide_int32_by_tensor": (
        lambda a, b: bounded(a) // small(b),
        (NEGATIVES, DIVISORS),
        (),
    ),
    "floor_divide_int32_by_scalar": (lambda a: bounded(a) // 3, (NEGATIVES,), ()),
    "div_floor_int64": (
        lambda a, b: torch.div(bounded(a.long()), small(b.long()), rounding_mode="floor"),
        (NEGATIVES, DIVISORS),
        (),
    ),
    "div_trunc_int32": (
        lambda a, b: torch.div(bounded(a), small(b), rounding_mode="trunc"),
        (NEGATIVES, DIVISORS),
        (),
    ),
    "floor_divide_float32": (
        lambda a, b: (a * 1) // b,
        (torch.tensor([1.0, -5.0, 0.7, 3.0]), torch.tensor([0.1, float("inf"), 0.1, 0.1])),
        ("aten::div",),
    ),
    "greater_than_int64_min": (lambda a: (a > -(2**63), a >= -(2**63)), (FLOATS,), ()),
    "remainder_int32_negative": (
        lambda a, b: bounded(a) % small(b),
        (NEGATIVES[:6], DIVISORS[:6]),
        (),
    ),
    "compare_int32_past_2_24": (
        lambda a, b: (a == b, a != b, a < b, a >= b, a == 2**24, a > 2**24),
        (torch.tensor([2**24 + 1, 5, -3], dtype=I32), torch.tensor([2**24, 5, 7], dtype=I32)),
        (),
    ),
    "compare_int64_past_2_24": (
        lambda a, b: (a.long() == b.long(), a.long() <= b.long()),
        (torch.tensor([2**24 + 1, -3], dtype=I32), torch.tensor([2**24, -3], dtype=I32)),
        (),
    ),
    "int8_wraps": (
        lambda a: (a + a).to(I32) * 2,
        (torch.tensor([100, -100, 5], dtype=torch.int8),),
        ("aten::add",),
    ),
    "uint8_wraps": (
        lambda a, b: (a - b).to(I32) * 2,
        (torch.tensor([0, 200], dtype=torch.uint8), torch.tensor([1, 100], dtype=torch.uint8)),
        ("aten::sub",),
    ),
    "arange_fractional_step": (
        lambda a: a + torch.arange(0, 1, 0.25),
        (torch.zeros(4),),
        ("aten::arange",),
    ),
    "clamp_int_with_float_bounds": (
        lambda a: a.clamp(-2.5, 2.5) * 2,
        (torch.tensor([-10, 0, 10]),),
        ("aten::clamp",),
    ),
    "avg_pool_divisor_override": (
        lambda a: torch.nn.functional.avg_pool2d(a * 2, 2, 2, divisor_override=3),
        (torch.ones(1, 1, 4, 4),),
        ("aten::avg_pool2d",),
    ),
    "nonzero_of_a_0d_tensor": (
        lambda a: (a * 2).sum().nonzero(),
        (torch.tensor([0.0, 1.0, 0.0, 2.0]),),
        ("aten::nonzero",),
    ),
    "sum_int32_past_2_24": (lambda a: (a + 1).sum(), (PAST_2_24,), ("aten::sum",)),
    "amax_int32_past_2_24": (lambda a: (a + 1).amax(), (PAST_2_24,), ("aten::amax",)),
    "argmax_int32_close_values": (
        lambda a: (a + 1).argmax(),
        (torch.tensor([2**24 + 1, 2**24 + 2, 0], dtype=I32),),
        ("aten::argmax",),
    ),
    "bool_count": (lambda a: (a > 0).sum(), (NEGATIVES,), ("aten::sum",)),
    "greater_with_nan": (
        lambda a, b: (a > b, a >= b, a > 0, a >= 0.5),
        (
            torch.tensor([1.0, float("nan"), 2.0, float("nan")]),
            torch.tensor([0.0, 1.0, float("nan"), float("nan")]),
        ),
        (),
    ),
    "cumsum_int32_past_2_24": (lambda a: bounded(a).cumsum(0), (PAST_2_24,), ()),
    "argmax_float_ties": (lambda a: a.argmax(), (torch.tensor([1.0, 3.0, 3.0, 2.0]),), ()),
    "where_inf": (
        lambda a: torch.where(a > 0, a, torch.full_like(a, float("-inf"))).nan_to_num(
            posinf=9.0, neginf=-9.0
        ),
        (torch.tensor([1.0, -1.0, float("inf"), float("-inf"), -0.0]),),
        (),
    ),
    # An empty dim list means every dimension in PyTorch, nothing in OpenVINO.
    "mean_over_empty_dims": (lambda a: torch.ops.aten.mean.dim(a * 2, []), (NEGATIVES_2D,), ()),
    "sum_over_empty_dims": (lambda a: torch.ops.aten.sum.dim_IntList(a, []), (NEGATIVES_2D,), ()),
    "amax_amin_over_empty_dims": (
        lambda a: (torch.amax(a, dim=()), torch.amin(a * 2, dim=[])),
        (NEGATIVES_2D,),
        (),
    ),
    "index_select_of_a_0d_index": (
        lambda a: torch.index_select(a * 2, 1, torch.tensor(2)),
        (NEGATIVES_2D,),
        (),
    ),
    "logical_ops_of_floats_and_ints": (
        lambda a, b: (torch.logical_and(a, b), torch.logical_or(a > 0, b), torch.logical_xor(a, b)),
        (FLOATS, torch.tensor([0, 3, 0, -1, 7, 0, 0, 2], dtype=I32)),
        (),
    ),
    # Past OpenVINO's 32-bit int64 and its float32 integer division: kept on the CPU.
    "prod_int32_to_2_40": (
        lambda a: (a.prod(), a.prod(0), a + 1),
        (torch.tensor([2**20, 2**20], dtype=I32),),
        ("aten::prod",),
    ),
    "int64_past_2_31": (
        lambda a, b, x: (a.abs(), a + b, a * b, x * 2),
        (torch.tensor([2**40, -(2**40), 3]), torch.tensor([2**31, 5, -(2**33)]), FLOATS),
        ("aten::abs", "aten::add", "aten::mul"),
    ),
    "int32_division_near_2_31": (
        lambda a, b: (a // b, a % b, torch.div(a, b, rounding_mode="trunc"), a + 1),
        (
            torch.tensor([2**31 - 1, -(2**31) + 1, 16777217, -7], dtype=I32),
            torch.tensor([1, 7, 1, 2], dtype=I32),
        ),
        ("aten::div",),
    ),
    "int32_pow_near_2_31": (
        lambda a: (a.pow(3), a + 1),
        (torch.tensor([1290, -1290, 1289, 7], dtype=I32),),
        ("aten::pow",),
    ),
    "bounded_int64_positions_stay_delegated": (
        lambda a: (torch.arange(a.shape[0]) * 3 + 1, (a > 0).cumsum(0) // 2),
        (FLOATS,),
        (),
    ),
    "nan_through_clamps_maxima_and_softmax": (
        lambda a: (
            torch.relu(a),
            # NaN in some lanes of a product whose relu OpenVINO fuses into it.
            torch.relu(
                a.nan_to_num().repeat(8, 9) @ a.nan_to_num().repeat(8, 9).T - a.repeat(8, 4)
            ),
            a.clamp(-0.5, 1.0),
            torch.nn.functional.hardtanh(a),
            a.exp().isnan(),  # exp's value differs from eager's in its last bit
            torch.maximum(a, a.flip(1)),
            a.amax(1),
            *a.max(1),
            a.argmax(1),
            a.softmax(1).isnan(),
            torch.nn.functional.max_pool2d(a[None], 2, 1),
        ),
        (torch.tensor([[float("nan"), -1.0, 2.0, 0.5], [1.0, float("nan"), -3.0, 4.0]]),),
        (),
    ),
    "topk_of_zero": (
        lambda a: (torch.topk(a + 1, 0, dim=1).values, a - 1),
        (NEGATIVES_2D,),
        ("aten::topk",),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_op_matches_eager(case):
    function, inputs, cpu_ops = CASES[case]
    check_program(Function(function), inputs, atol=0, cpu_ops=cpu_ops)


def test_round_with_decimals_lowers_and_matches_eager_to_openvino_division():
    # OpenVINO's CPU plugin divides to within one float32 ulp (31 / 10 gives
    # 3.1000001 where IEEE division gives 3.0999999), hence the relative 2.4e-7.
    values = torch.tensor([0.25, 1.15, -2.35, 3.14159, 2.675, -0.45, 123.456, 15.0, -35.0, 1e30])
    check_program(
        Function(lambda x: (torch.round(x, decimals=1), torch.round(x, decimals=-1))),
        (values,),
        atol=0,
        rtol=2.4e-7,
    )


def test_multivariate_normal_log_prob_lowers_whole_and_matches_eager():
    torch.manual_seed(0)
    check_program(MultivariateNormalLogProb(), (torch.randn(5, 3),), atol=1e-5, rtol=1e-5)


class TwoConds(torch.nn.Module):
    """Two conds on one predicate, both results returned; a NaN reaches ``relu`` in a branch."""

    def forward(self, x):
        positive = x.nan_to_num().sum() > 0
        return (
            torch.cond(positive, lambda x: torch.relu(x) + 1, lambda x: x.clamp(-1.0, 0.0), (x,)),
            torch.cond(positive, lambda x: x * 2, lambda x: x * 3, (x,)),
        )


class Doubling(torch.nn.Module):
    """A ``while_loop`` whose trip count depends on the input's values."""

    def forward(self, x):
        return torch._higher_order_ops.while_loop(
            lambda y: y.abs().amax(0) < 100, lambda y: (y * 2 + 1,), (x,)
        )


def test_conds_are_delegated_whole_and_keep_distinct_results():
    # ExecuTorch's CPU path returned the second cond's result twice.
    outcome = check_program(
        TwoConds(),
        (torch.tensor([float("nan"), 2.0, -0.5]),),
        atol=0,
        more_inputs=[(torch.tensor([float("nan"), -2.0, 0.5]),)],
    )
    assert outcome.lowered.cpu_nodes == 0, outcome.lowered.rejections


def test_a_while_loop_is_delegated_whole():
    outcome = check_program(
        Doubling(),
        (torch.tensor([0.5, -1.0, 3.0]),),
        atol=0,
        more_inputs=[(torch.tensor([40.0, 1.0, 0.0]),)],
    )
    assert outcome.lowered.cpu_nodes == 0, outcome.lowered.rejections
