"""A partition's trial conversion is taken back by preprocess only for the same graph and values."""

import copy

import pytest
import torch
from executorch.exir import to_edge

from ov_convert import OvExecutorchBackend
from ov_convert.trial_models import forget_trial_models, take_trial_model


@pytest.fixture(autouse=True)
def nothing_kept():
    forget_trial_models()
    yield
    forget_trial_models()


def linear_program(seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Linear(4, 3)
    return to_edge(torch.export.export(model, (torch.randn(2, 4),))).exported_program()


def test_the_trial_model_is_taken_once_for_an_equal_partition():
    program = linear_program()
    model = OvExecutorchBackend.convert(program, [])
    assert take_trial_model(copy.deepcopy(program)) is model  # ExecuTorch's copy for preprocess
    assert take_trial_model(program) is None


def test_a_weight_of_another_value_is_converted_anew():
    program = linear_program()
    OvExecutorchBackend.convert(program, [])
    changed = copy.deepcopy(program)
    weight = next(name for name in changed.state_dict if name.endswith("weight"))
    with torch.no_grad():
        changed.state_dict[weight][0, 0] += 1
    assert take_trial_model(changed) is None
    assert take_trial_model(program) is not None


def test_a_negative_zero_is_not_a_zero():
    program = linear_program()
    weight = next(name for name in program.state_dict if name.endswith("weight"))
    with torch.no_grad():
        program.state_dict[weight].zero_()
    OvExecutorchBackend.convert(program, [])
    negative = copy.deepcopy(program)
    with torch.no_grad():
        negative.state_dict[weight].neg_()  # -0.0 everywhere: 1 / w is -inf
    assert take_trial_model(negative) is None
    assert take_trial_model(copy.deepcopy(program)) is not None


def test_a_nan_weight_matches_its_own_bits():
    program = linear_program()
    weight = next(name for name in program.state_dict if name.endswith("weight"))
    with torch.no_grad():
        program.state_dict[weight][0, 0] = float("nan")
    model = OvExecutorchBackend.convert(program, [])
    assert take_trial_model(copy.deepcopy(program)) is model


def test_another_graph_is_converted_anew():
    OvExecutorchBackend.convert(linear_program(), [])
    other = to_edge(
        torch.export.export(torch.nn.Linear(4, 3), (torch.randn(5, 4),))
    ).exported_program()
    assert take_trial_model(other) is None


def test_preprocess_drops_what_it_did_not_take():
    trial = linear_program(seed=1)
    OvExecutorchBackend.convert(trial, [])
    OvExecutorchBackend.preprocess(linear_program(seed=2), [])
    assert take_trial_model(trial) is None


def test_control_flow_with_other_branches_is_converted_anew():
    class Branches(torch.nn.Module):
        def __init__(self, swapped):
            super().__init__()
            self.swapped = swapped

        def forward(self, x):
            first, second = (torch.cos, torch.sin) if self.swapped else (torch.sin, torch.cos)
            return torch.cond(x.sum() > 0, lambda x: first(x), lambda x: second(x), (x,))

    def program(swapped):
        exported = torch.export.export(Branches(swapped), (torch.rand(3),))
        return to_edge(exported).exported_program()

    OvExecutorchBackend.convert(program(swapped=False), [])
    assert take_trial_model(program(swapped=True)) is None
    assert take_trial_model(program(swapped=False)) is not None
