"""Indices of tied extrema equal PyTorch's (the first one) through ExecuTorch's own API."""

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from ov_runtime import BACKEND_ID, OpenvinoPartitioner

LENGTHS = (1, 2, 5, 6, 16, 17, 40, 100, 1000)


class TiedExtrema(torch.nn.Module):
    def forward(self, *rows):
        outputs = []
        for x in rows:
            values, indices = torch.max(x, dim=-1)
            outputs += [values, indices, torch.min(x, dim=-1).indices, torch.min(x, 0).indices]
            outputs += [x.argmax(-1), x.argmin(-1), x.argmax(0, keepdim=True)]
        return tuple(outputs)


def tied_rows(dtype, seed):
    """Rows of each length of values in 0..3: every extremum is tied many times."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randint(0, 4, (3, n), generator=generator).to(dtype) for n in LENGTHS)


@pytest.mark.parametrize(
    "dtype",
    [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int64],
    ids=lambda dtype: str(dtype).removeprefix("torch."),
)
def test_tied_maxima_and_minima_give_the_first_index(dtype):
    model = TiedExtrema()
    rows = tied_rows(dtype, 0)
    program = to_edge_transform_and_lower(
        torch.export.export(model, rows), partitioner=[OpenvinoPartitioner()]
    ).to_executorch()
    delegates = [d.id for d in program.executorch_program.execution_plan[0].delegates]
    # OpenVINO computes integer extrema in float32, so those stay on ExecuTorch's kernels.
    assert delegates == ([BACKEND_ID] if dtype.is_floating_point else []), delegates
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    for seed in (0, 1):
        rows = tied_rows(dtype, seed)
        outputs = method.execute(list(rows))
        for index, (got, expected) in enumerate(zip(outputs, model(*rows), strict=True)):
            assert torch.equal(got, expected), (index, got, expected)
