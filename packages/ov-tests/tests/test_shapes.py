"""0-d and zero-size tensors, outputs whose size depends on the inputs, repeated calls."""

import pytest
import torch

from ov_partition import SUPPORTED_DTYPES
from ov_runtime import compile_specs, load_program, lower, run
from ov_tests import check_program

DTYPES = sorted(SUPPORTED_DTYPES, key=str)


def scalar(value, dtype):
    return torch.tensor(value).to(dtype)


class MulAndSum(torch.nn.Module):
    def forward(self, a, b):
        # Integer sums and int8/uint8 arithmetic stay on the CPU; selecting
        # and comparing reach OpenVINO for every dtype.
        selected, equal = torch.where(a == b, a, b), a == b
        if a.is_floating_point():
            return selected, equal, a * b, (a * b).sum()
        return selected, equal


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_0d_inputs_and_outputs_keep_their_empty_shape(dtype):
    a, b = scalar(3, dtype), scalar(2, dtype)
    if dtype == torch.bool:
        b = scalar(0, dtype)
    # int64 inputs reach OpenVINO only when the compile spec allows narrowing.
    specs = compile_specs(allow_int64_narrowing=True) if dtype == torch.int64 else None
    outcome = check_program(
        MulAndSum(),
        (a, b),
        atol=0,
        more_inputs=[(scalar(1, dtype), scalar(1, dtype)), (scalar(0, dtype), scalar(5, dtype))],
        compile_specs=specs,
    )
    for outputs in outcome.outputs:
        assert all(output.shape == () for output in outputs)


class Scale(torch.nn.Module):
    def forward(self, x, y):
        return x * 2, torch.cat([x, y]), y.sum(dim=0)


def test_zero_size_inputs_and_outputs():
    check_program(Scale(), (torch.randn(0, 3), torch.randn(2, 3)), atol=1e-6)


def test_zero_size_along_a_dynamic_dimension():
    dim = torch.export.Dim("rows", min=0, max=16)
    check_program(
        Scale(),
        (torch.randn(4, 3), torch.randn(2, 3)),
        atol=1e-6,
        dynamic_shapes=({0: dim}, None),
        more_inputs=[
            (torch.randn(0, 3), torch.randn(2, 3)),
            (torch.randn(16, 3), torch.randn(2, 3)),
        ],
    )


class Rows(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 3, x.sum()


def test_dynamic_batch_over_many_calls():
    dim = torch.export.Dim("batch", min=1, max=64)
    shapes = [5, 1, 64, 2, 33, 5]
    check_program(
        Rows(),
        (torch.randn(shapes[0], 7),),
        atol=1e-5,
        rtol=1e-6,
        dynamic_shapes=({0: dim},),
        more_inputs=[(torch.randn(n, 7),) for n in shapes[1:]],
    )


class SliceView(torch.nn.Module):
    """``x[:n].view(n, -1)`` with ``n`` from an input's size, plus a static output."""

    def forward(self, x, y):
        n = y.shape[0]
        return x[:n].view(n, -1), x * 2


def test_output_size_follows_an_int_over_many_calls():
    x = torch.randn(4, 8)
    dim = torch.export.Dim("n", min=0, max=4)
    lowered = lower(SliceView(), (x, torch.zeros(3)), dynamic_shapes=(None, {0: dim}))
    program = load_program(lowered.buffer)
    for n in [3, 0, 1, 4, 3, 0]:
        sliced, doubled = run(program, [x, torch.zeros(n)])
        # eager's view(0, -1) is ambiguous; the exported program knows the size is 8.
        assert sliced.shape == (n, 8)
        assert torch.equal(sliced, x[:n].reshape(n, 8))
        assert torch.equal(doubled, x * 2)


class CountFromShape(torch.nn.Module):
    """Reads ``x`` only through its (static, folded) shape."""

    def forward(self, x):
        return torch.ones_like(x).cumsum(0)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.bool], ids=str)
def test_input_read_only_through_a_folded_shape(dtype):
    x = torch.ones(300, dtype=dtype)
    check_program(
        CountFromShape(), (x,), atol=0, more_inputs=[(x,), (torch.zeros(300, dtype=dtype),)]
    )


class MaskPositions(torch.nn.Module):
    def forward(self, mask):
        return mask.cumsum(-1) - 1, mask.to(torch.int32).cumsum(-1)


def test_cumsum_over_a_bool_mask_counts_past_255():
    mask = torch.ones(2, 600, dtype=torch.bool)
    mask[1, ::3] = False
    check_program(MaskPositions(), (mask,), atol=0, more_inputs=[(~mask,), (mask,)])


class SliceByItem(torch.nn.Module):
    """``x[:n].view(n, -1)`` with ``n`` read from a 0-d int64 tensor input."""

    def forward(self, x, n):
        k = n.item()
        torch._check(k >= 0)
        torch._check(k <= x.shape[0])
        return x[:k].view(k, -1)


@pytest.mark.parametrize(
    "skip_ops",
    [(), ("aten._local_scalar_dense.default",)],
    ids=["int_computed_in_the_delegate", "int_passed_into_the_delegate"],
)
def test_int_feeding_a_shape_gives_outputs_of_that_size(skip_ops):
    from executorch.exir import EdgeCompileConfig

    x = torch.randn(4, 8)
    lowered = lower(
        SliceByItem(),
        (x, torch.tensor(3)),
        skip_ops=skip_ops,
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    assert lowered.delegated_nodes > 0
    program = load_program(lowered.buffer)
    for n in [3, 0, 1, 4, 3]:
        (sliced,) = run(program, [x, torch.tensor(n)])
        assert sliced.shape == (n, 8)
        assert torch.equal(sliced, x[:n].reshape(n, 8))
