"""The partitioner's decompositions apply through ExecuTorch's own API.

``to_edge`` refuses ``round.decimals`` and ``linalg_solve_triangular``, and
ExecuTorch 1.5.1's integer ``remainder`` kernel takes the dividend's sign;
``OpenvinoPartitioner.transform_for_pre_decomposition`` decomposes them before
``to_edge_transform_and_lower`` goes on.
"""

import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from ov_runtime import BACKEND_ID, OpenvinoPartitioner
from ov_tests.models import MultivariateNormalLogProb


class Rounds(torch.nn.Module):
    def forward(self, x):
        return torch.round(x, decimals=1), torch.round(x, decimals=-1), torch.round(x, decimals=3)


class Solves(torch.nn.Module):
    def forward(self, a, b):
        return (
            torch.linalg.solve_triangular(a, b, upper=True),
            torch.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
            torch.linalg.solve_triangular(a, b.mT, upper=False, left=False),
        )


class Remainders(torch.nn.Module):
    def forward(self, x, y):
        return x % 3, torch.remainder(x, y), torch.remainder(-x, 7)


def run_through_executorch(model, inputs, more_inputs=(), *, delegated=True):
    partitioner = OpenvinoPartitioner()
    program = to_edge_transform_and_lower(
        torch.export.export(model, inputs), partitioner=[partitioner]
    ).to_executorch()
    if delegated:
        plan = program.executorch_program.execution_plan[0]
        assert [d.id for d in plan.delegates] == [BACKEND_ID]
        assert not plan.operators, partitioner.rejections
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    return [(method.execute(list(x)), model(*x)) for x in (inputs, *more_inputs)]


def test_round_with_decimals_lowers_and_equals_eager_to_float32_rounding():
    generator = torch.Generator().manual_seed(0)
    values = [(torch.randn(6, 7, generator=generator) * 10**k,) for k in (0, 2, 4)]
    for outputs, expected in run_through_executorch(Rounds(), values[0], values[1:]):
        for got, want in zip(outputs, expected, strict=True):
            torch.testing.assert_close(got, want, atol=0, rtol=2.4e-7)


def test_solve_triangular_lowers_and_equals_eager():
    generator = torch.Generator().manual_seed(0)
    calls = [
        (torch.randn(2, 4, 4, generator=generator) + 4 * torch.eye(4), torch.randn(4, 3))
        for _ in range(2)
    ]
    for outputs, expected in run_through_executorch(Solves(), calls[0], calls[1:]):
        for got, want in zip(outputs, expected, strict=True):
            torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_multivariate_normal_log_prob_lowers_whole_through_executorchs_api():
    torch.manual_seed(0)
    ((outputs, expected),) = run_through_executorch(
        MultivariateNormalLogProb(), (torch.randn(5, 3),)
    )
    torch.testing.assert_close(outputs[0], expected, atol=1e-5, rtol=1e-5)


def test_round_with_decimals_of_float64_runs_on_executorchs_kernels():
    x = torch.tensor([1.25, -2.35, 1e6 + 0.05, 2.675], dtype=torch.float64)
    ((outputs, expected),) = run_through_executorch(Rounds(), (x,), delegated=False)
    # ExecuTorch's kernels divide by the scale through its reciprocal: 1 ulp.
    for got, want in zip(outputs, expected, strict=True):
        torch.testing.assert_close(got, want, atol=0, rtol=2.3e-16)


def test_integer_remainder_takes_the_divisors_sign_on_executorchs_kernels_too():
    """int64 operands not proved to fit in 32 bits stay on ExecuTorch's kernels."""
    x = torch.tensor([-7, 7, -(2**40), 5, 0])
    y = torch.tensor([2, -2, 3, -3, 5])
    calls = run_through_executorch(Remainders(), (x, y), [(-x, y.flip(0))], delegated=False)
    for outputs, expected in calls:
        for got, want in zip(outputs, expected, strict=True):
            assert torch.equal(got, want), (got, want)
