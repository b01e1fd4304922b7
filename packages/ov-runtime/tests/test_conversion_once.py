"""Lowering through ExecuTorch's API converts each partition once, and computes what eager does."""

import pytest
import torch
from executorch.exir import to_edge, to_edge_transform_and_lower
from executorch.runtime import Runtime

import ov_runtime  # noqa: F401  (registers the backend for executorch.runtime)
from ov_convert import preprocess
from ov_partition import OpenvinoPartitioner


class TwoPartitions(torch.nn.Module):
    """Two linear layers with a ReLU between them that the partitioner is told to skip.

    The norm's epsilon becomes a tensor constant that ExecuTorch lifts while
    it makes the edge program, after ``ops_to_not_decompose`` (as in
    transformers' ``LlamaRMSNorm``).
    """

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.eps = 1e-6
        self.first = torch.nn.Linear(16, 32)
        self.second = torch.nn.Linear(32, 8)

    def forward(self, x):
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.second(torch.relu(self.first(x)))


SKIP = {"aten.relu.default"}


@pytest.fixture
def conversions(monkeypatch):
    """The partitions OpenVINO's frontend converted, counted as lowering runs."""
    counted = []
    convert = preprocess._convert

    def counting(program):
        counted.append(program)
        return convert(program)

    monkeypatch.setattr(preprocess, "_convert", counting)
    return counted


def run(buffer, x):
    return Runtime.get().load_program(buffer).load_method("forward").execute([x])[0]


def test_to_edge_transform_and_lower_converts_each_partition_once(conversions):
    model, x = TwoPartitions().eval(), torch.randn(4, 16)
    program = to_edge_transform_and_lower(
        torch.export.export(model, (x,)), partitioner=[OpenvinoPartitioner(skip_ops=SKIP)]
    ).to_executorch()
    assert len(conversions) == 2  # the trials', reused by preprocess
    torch.testing.assert_close(run(program.buffer, x), model(x), rtol=1e-5, atol=1e-5)


def test_a_trial_on_zeros_is_not_reused_and_preprocess_converts_the_weights(conversions):
    # to_backend alone never shows the partitioner the real weights.
    model, x = TwoPartitions().eval(), torch.randn(4, 16)
    edge = to_edge(torch.export.export(model, (x,)))
    program = edge.to_backend(OpenvinoPartitioner(skip_ops=SKIP)).to_executorch()
    assert len(conversions) == 4
    torch.testing.assert_close(run(program.buffer, x), model(x), rtol=1e-5, atol=1e-5)


class NegativeZeros(torch.nn.Module):
    """A weight of -0.0 everywhere: ``1 / (x * w)`` is -inf where a weight of 0.0 gives inf."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.full((4,), -0.0))

    def forward(self, x):
        return 1.0 / (x * self.weight)


def test_a_trial_on_zeros_is_not_reused_for_weights_of_negative_zero(conversions):
    # to_backend alone converts on trial with +0.0 in place of the fake weights.
    model, x = NegativeZeros(), torch.ones(2, 4)
    edge = to_edge(torch.export.export(model, (x,)))
    program = edge.to_backend(OpenvinoPartitioner()).to_executorch()
    assert len(conversions) == 2
    torch.testing.assert_close(run(program.buffer, x), model(x).detach())
