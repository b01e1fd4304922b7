"""``nonzero`` equals PyTorch's through ExecuTorch's own API, or lowering warns that it cannot."""

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from ov_partition import ScrambledNonzeroWarning
from ov_runtime import BACKEND_ID, OpenvinoPartitioner


class LinearThenNonzero(torch.nn.Module):
    def __init__(self, features: int) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(features, features)

    def forward(self, x):
        return torch.nonzero(self.linear(x) > 0.2)


class Nonzero(torch.nn.Module):
    def forward(self, x):
        return torch.nonzero(x)


def lower(model, example, **export):
    partitioner = OpenvinoPartitioner()
    program = to_edge_transform_and_lower(
        torch.export.export(model, (example,), **export), partitioner=[partitioner]
    ).to_executorch()
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    delegates = [d.id for d in program.executorch_program.execution_plan[0].delegates]
    return method, delegates, partitioner.rejections


def assert_equal_on(model, method, *inputs):
    for x in inputs:
        (got,) = method.execute([x])
        expected = model(x)
        assert got.shape == expected.shape and torch.equal(got, expected), (x, got, expected)


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 2, 3), (1, 6), (6, 1)], ids=str)
def test_nonzero_after_a_delegated_linear_gives_pytorchs_index_pairs(shape):
    torch.manual_seed(0)
    model = LinearThenNonzero(shape[-1])
    method, delegates, rejections = lower(model, torch.randn(shape))
    assert delegates == [BACKEND_ID] and "aten_nonzero_default" not in rejections
    generator = torch.Generator().manual_seed(1)
    inputs = [torch.randn(shape, generator=generator) for _ in range(3)]
    assert_equal_on(model, method, *inputs, torch.full(shape, -100.0), torch.full(shape, 100.0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32, torch.bool], ids=str)
def test_nonzero_of_each_delegated_dtype_counts_nan_and_not_negative_zero(dtype):
    values = torch.tensor([[0.0, 1.0, -0.0], [float("nan"), 0.0, -2.0]])
    x = values.to(dtype) if dtype.is_floating_point else values.nan_to_num().to(dtype)
    method, delegates, _ = lower(Nonzero(), x)
    assert delegates == [BACKEND_ID]
    assert_equal_on(Nonzero(), method, x, torch.zeros_like(x), torch.ones_like(x))


def test_nonzero_of_a_dynamic_batch_is_delegated():
    batch = torch.export.Dim("batch", min=1, max=16)
    x = torch.tensor([[0.0, 1.0], [2.0, 0.0], [3.0, 4.0]])
    method, delegates, _ = lower(Nonzero(), x, dynamic_shapes=({0: batch},))
    assert delegates == [BACKEND_ID]
    assert_equal_on(Nonzero(), method, x, torch.eye(7, 2), torch.ones(1, 2), torch.zeros(16, 2))


@pytest.mark.parametrize("dtype", [torch.int64, torch.float64], ids=str)
def test_nonzero_of_inputs_openvino_cannot_read_exactly_is_delegated_behind_a_mask(dtype):
    """OpenVINO truncates int64 to 32 bits (2**32 reads as zero) and takes no float64."""
    x = torch.tensor([[0, 2**32], [3, 0], [5, -(2**40)]]).to(dtype)
    method, delegates, rejections = lower(Nonzero(), x)
    assert delegates == [BACKEND_ID] and "aten_nonzero_default" not in rejections
    assert_equal_on(Nonzero(), method, x, x.flip(0), torch.zeros_like(x))


def test_a_nonzero_kept_on_the_cpu_warns_that_its_result_reads_back_scrambled():
    model = LinearThenNonzero(4)
    with pytest.warns(ScrambledNonzeroWarning, match="aten_nonzero_default"):
        to_edge_transform_and_lower(
            torch.export.export(model, (torch.randn(3, 4),)),
            partitioner=[OpenvinoPartitioner(skip_ops={"aten.nonzero.default"})],
        )


def test_nonzero_of_a_0d_tensor_stays_on_the_cpu_and_is_exact():
    method, _, rejections = lower(Nonzero(), torch.tensor(3.0))
    assert "0-d tensor" in rejections["aten_nonzero_default"]
    assert_equal_on(Nonzero(), method, torch.tensor(3.0), torch.tensor(0.0))
