"""A weight two MatMuls read transposed and not computes what eager does, through ExecuTorch's API."""

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from ov_runtime import OpenvinoPartitioner  # registers the backend, for lowering and running


class LinearThenWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(4, 4, bias=False)

    def forward(self, x):
        return torch.relu(self.linear(x)) @ self.linear.weight


class BackToBack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.weight = torch.nn.Parameter(torch.randn(2, 8, 8))

    def forward(self, x):
        return torch.bmm(torch.bmm(x, self.weight.transpose(1, 2)), self.weight)


@pytest.mark.parametrize(
    ("model", "x"),
    [(LinearThenWeight(), torch.randn(1, 4)), (BackToBack(), torch.randn(2, 3, 8))],
    ids=["linear-then-weight", "back-to-back"],
)
def test_a_weight_read_transposed_and_not_gives_eagers_result(model, x):
    exported = torch.export.export(model, (x,))
    edge = to_edge_transform_and_lower(exported, partitioner=[OpenvinoPartitioner()])
    program = Runtime.get().load_program(edge.to_executorch().buffer)
    output = program.load_method("forward").execute([x])[0]
    torch.testing.assert_close(output, model(x).detach(), rtol=1e-5, atol=1e-5)
