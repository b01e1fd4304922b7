"""The fuzzer's comparison: what counts as eager's result, and what as OpenVINO's documented limits."""

import torch

from ov_tests.graph_fuzz.compare import explained, float32_inside
from ov_tests.graph_fuzz.draw import Graph

# Graph 2,469 of seed 1: the delegate computes tan(asin(cosh(y))) in float32, while the float
# remainder after the partition boundary runs on ExecuTorch's kernels, rounding as eager does.
_SPLIT_ACROSS_A_BOUNDARY = Graph(
    inputs=[("x1", torch.float16, (4,)), ("x2", torch.int8, ())],
    lines=[
        "v0 = aten.cosh.default(x1)",
        "v5 = aten.asin.default(v0)",
        "v8 = aten.tan.default(v5)",
        "v9 = aten.remainder.Tensor(x2, v0)",
    ],
    outputs=["v8", "v9"],
    ops=["aten.cosh.default", "aten.asin.default", "aten.tan.default", "aten.remainder.Tensor"],
)
_VALUES = [
    torch.tensor([-0.23388671875, 0.0, 1.154296875, 0.0009765625], dtype=torch.float16),
    torch.tensor(-128, dtype=torch.int8),
]


def test_each_output_may_be_eagers_or_computed_in_float32_inside():
    expected = list(_SPLIT_ACROSS_A_BOUNDARY.module()(*_VALUES))
    inside = float32_inside(_SPLIT_ACROSS_A_BOUNDARY, _VALUES, expected)
    assert inside is not None
    assert not torch.equal(inside[0], expected[0]) and not torch.equal(inside[1], expected[1])
    status, _ = explained(_SPLIT_ACROSS_A_BOUNDARY, _VALUES, [inside[0], expected[1]], expected)
    assert status == "half in float32"
    wrong = expected[1].clone()
    wrong[0] += 0.25
    status, _ = explained(_SPLIT_ACROSS_A_BOUNDARY, _VALUES, [inside[0], wrong], expected)
    assert status == "mismatch"


_TANH_BESIDE_ELU = Graph(
    inputs=[("x0", torch.bfloat16, (3,))],
    lines=[
        "v0 = aten.elu.default(x0)",
        "v1 = aten.tanh.default(x0)",
        "v2 = aten.logical_xor.default(v1, v0)",
    ],
    outputs=["v2"],
    ops=["aten.elu.default", "aten.tanh.default", "aten.logical_xor.default"],
)


def test_subnormals_flushed_in_some_ops_and_kept_in_others_are_flushing():
    # Graph 2,913 of seed 1: the CPU plugin flushed tanh's subnormal result and kept elu's.
    x = torch.tensor([2.938735877055719e-39, 1.0, -0.5], dtype=torch.bfloat16)
    expected = list(_TANH_BESIDE_ELU.module()(x))
    assert expected[0].tolist() == [False, False, False]
    status, _ = explained(_TANH_BESIDE_ELU, [x], [torch.tensor([True, False, False])], expected)
    assert status == "subnormals flushed"
    # No op's flushing makes a normal number's truth differ.
    status, _ = explained(_TANH_BESIDE_ELU, [x], [torch.tensor([True, True, False])], expected)
    assert status == "mismatch"
