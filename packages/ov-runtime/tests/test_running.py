import pytest
import torch

from ov_runtime import ExecutionError, load_program, lower, run


class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b


@pytest.fixture(scope="module")
def program():
    return load_program(lower(Add(), (torch.ones(2, 3), torch.ones(2, 3))).buffer)


def test_wrong_dtype_names_the_input(program):
    with pytest.raises(
        ExecutionError, match=r"input 1 has dtype torch.int64; the method takes torch.float32"
    ):
        run(program, [torch.ones(2, 3), torch.ones(2, 3, dtype=torch.int64)])


def test_wrong_rank_names_the_input(program):
    with pytest.raises(ExecutionError, match=r"input 0 has shape \(6,\); the method takes rank 2"):
        run(program, [torch.ones(6), torch.ones(2, 3)])


def test_wrong_count_names_both_counts(program):
    with pytest.raises(ExecutionError, match="takes 2 inputs; 1 were given"):
        run(program, [torch.ones(2, 3)])


def test_right_inputs_run(program):
    assert torch.equal(
        run(program, [torch.ones(2, 3), torch.ones(2, 3)])[0], torch.full((2, 3), 2.0)
    )
