"""``scatter_reduce`` runs on OpenVINO's ScatterElementsUpdate through ExecuTorch's own API.

ExecuTorch 1.5.1 has no ``scatter_reduce`` kernel, so a program that left it on
the CPU would lower and then fail to load.
"""

import itertools

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from ov_runtime import BACKEND_ID, OpenvinoPartitioner

REDUCTIONS = ("sum", "prod", "amax", "amin", "mean")


class EveryScatterReduce(torch.nn.Module):
    """Each reduction, with and without ``self``, along each dim (``src`` wider than ``index``)."""

    def __init__(self, reductions):
        super().__init__()
        self.cases = list(itertools.product(reductions, (True, False), (0, -1)))

    def forward(self, x, rows, columns, source):
        return tuple(
            x.scatter_reduce(dim, rows if dim == 0 else columns, source, reduce, include_self=own)
            for reduce, own, dim in self.cases
        )


def inputs(dtype, seed):
    generator = torch.Generator().manual_seed(seed)
    x = (torch.randn(4, 5, generator=generator) * 4).to(dtype)
    rows = torch.randint(0, 4, (3, 4), generator=generator)
    columns = torch.randint(0, 5, (3, 4), generator=generator)
    source = (torch.randn(3, 5, generator=generator) * 4).to(dtype)
    return x, rows, columns, source


@pytest.mark.parametrize(
    ("dtype", "tolerance"),
    [(torch.float32, 1e-5), (torch.float16, 2e-2), (torch.int32, 0)],
    ids=lambda value: str(value).removeprefix("torch."),
)
def test_every_reduction_equals_pytorch_and_loads(dtype, tolerance):
    # An integer mean stays on the CPU (OpenVINO truncates it toward zero,
    # PyTorch floors it): test_converter_refusals covers that.
    model = EveryScatterReduce(REDUCTIONS if dtype.is_floating_point else REDUCTIONS[:4])
    partitioner = OpenvinoPartitioner()
    program = to_edge_transform_and_lower(
        torch.export.export(model, inputs(dtype, 0)), partitioner=[partitioner]
    ).to_executorch()
    assert [d.id for d in program.executorch_program.execution_plan[0].delegates] == [BACKEND_ID]
    assert not [name for name in partitioner.rejections if "scatter_reduce" in name]
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    for seed in (0, 1):
        arguments = inputs(dtype, seed)
        outputs = method.execute(list(arguments))
        for case, got, expected in zip(model.cases, outputs, model(*arguments), strict=True):
            assert got.dtype == expected.dtype, case
            close = torch.allclose(got.double(), expected.double(), rtol=tolerance, atol=tolerance)
            assert close, (case, got, expected)


def test_the_partitioner_claims_each_op_a_conversion_extension_converts():
    from ov_convert.extensions import EXTENSION_OPS
    from ov_partition import converts

    assert EXTENSION_OPS and all(converts(name) for name in EXTENSION_OPS)
