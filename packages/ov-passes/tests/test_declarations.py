"""The pass manager's order check, and what the passes declare for the partitioner."""

import pytest
import torch

from ov_passes import (
    DEFAULT_PASSES,
    REWRITES,
    PassOrderError,
    Stage,
    broadcast_weights_as_matmul,
    check_order,
    declaration,
    declare,
    drop_no_op_aliases,
    exact_integer_comparisons,
    extremum_and_index_as_reduction_and_arg,
    fake_quantize_as_pairs,
    nan_through_clamps_and_maxima,
    truth_as_comparisons,
    view_sizes_from_metadata,
)


def test_the_default_pipeline_keeps_every_declared_order():
    check_order(DEFAULT_PASSES)
    assert all(declaration(graph_pass) for graph_pass in DEFAULT_PASSES)


def swapped(first, second):
    order = list(DEFAULT_PASSES)
    i, j = order.index(first), order.index(second)
    order[i], order[j] = order[j], order[i]
    return order


def test_a_pass_before_one_it_needs_is_refused_with_the_reason():
    with pytest.raises(PassOrderError, match="nan_through_clamps_and_maxima must run after"):
        check_order(swapped(extremum_and_index_as_reduction_and_arg, nan_through_clamps_and_maxima))
    with pytest.raises(PassOrderError, match=r"exact_integer_comparisons must run after.*compare"):
        check_order(swapped(truth_as_comparisons, exact_integer_comparisons))


def test_a_pass_it_needs_that_is_missing_is_refused():
    order = [p for p in DEFAULT_PASSES if p is not view_sizes_from_metadata]
    with pytest.raises(PassOrderError, match="view_sizes_from_metadata, which is missing"):
        check_order(order)


def test_stages_run_in_order():
    with pytest.raises(PassOrderError, match=r"broadcast_weights_as_matmul \(QUANTIZATION\) runs"):
        order = [p for p in DEFAULT_PASSES if p is not broadcast_weights_as_matmul]
        check_order([*order, broadcast_weights_as_matmul])
    order = [*DEFAULT_PASSES]
    order.remove(drop_no_op_aliases)
    order.insert(order.index(view_sizes_from_metadata) + 1, drop_no_op_aliases)
    with pytest.raises(PassOrderError, match="stages run in the order"):
        check_order(order)


def test_a_pass_that_declares_nothing_is_refused():
    def undeclared(graph_module: torch.fx.GraphModule) -> bool:
        return False

    with pytest.raises(PassOrderError, match="declares no stage"):
        check_order([*DEFAULT_PASSES, undeclared])


def test_an_order_without_a_reason_is_refused():
    with pytest.raises(ValueError, match="says why"):
        declare(Stage.REWRITES, after=("greater_as_less",))


def test_the_passes_declare_the_ops_they_make_convertible():
    assert {
        "aten.logical_and.default",
        "aten.expm1.default",
        "aten.diagonal_copy.default",
        "torchao.dequantize_affine.default",
        "aten.fake_quantize_per_channel_affine.default",
    } <= REWRITES.ops
    assert REWRITES.kept_whole == declaration(fake_quantize_as_pairs).converts


class CeilPool(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_a_pass_declares_its_limit_for_the_partitioner(dynamic):
    shapes = {"x": {3: 2 * torch.export.Dim("half", min=2, max=32)}} if dynamic else None
    program = torch.export.export(CeilPool(), (torch.randn(1, 1, 6, 6),), dynamic_shapes=shapes)
    pool = next(n for n in program.graph.nodes if "avg_pool" in str(n.target))
    reason = REWRITES.refusal(pool)
    assert (reason is not None) is dynamic
    assert reason is None or "static sizes only" in reason
