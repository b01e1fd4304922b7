"""Decompositions of ops ExecuTorch's edge checker rejects compute what PyTorch computes."""

import pytest
import torch

from ov_partition.pre_decomposition import (
    DECOMPOSITIONS,
    needs_decompositions,
    round_decimals,
    solve_triangular,
)

VALUES = torch.tensor([0.25, 1.15, -2.35, 1e6 + 0.05, 3.14159, 2.675, -0.45, 123.456, 15.0, -35.0])


@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 2, 3])
def test_round_decimals_equals_pytorch_bit_for_bit(decimals):
    expected = torch.round(VALUES, decimals=decimals)
    assert torch.equal(round_decimals(VALUES, decimals=decimals), expected)


def test_a_program_with_round_decimals_is_decomposed_into_core_ops():
    class Round(torch.nn.Module):
        def forward(self, x):
            return torch.round(x, decimals=1) + 1

    program = torch.export.export(Round(), (VALUES,))
    assert needs_decompositions(program)
    decomposed = program.run_decompositions(DECOMPOSITIONS)
    assert not needs_decompositions(decomposed)
    assert torch.equal(decomposed.module()(VALUES), Round()(VALUES))


@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
@pytest.mark.parametrize("left", [True, False], ids=["left", "right"])
@pytest.mark.parametrize("unitriangular", [False, True], ids=["", "unit"])
def test_solve_triangular_equals_pytorch(upper, left, unitriangular):
    torch.manual_seed(0)
    a = torch.randn(2, 4, 4) + 4 * torch.eye(4)
    a = a.triu() if upper else a.tril()
    b = torch.randn(3, 1, 4, 5) if left else torch.randn(3, 1, 5, 4)
    options = {"upper": upper, "left": left, "unitriangular": unitriangular}
    expected = torch.linalg.solve_triangular(a, b, **options)
    torch.testing.assert_close(solve_triangular(a, b, **options), expected, rtol=1e-5, atol=1e-6)
