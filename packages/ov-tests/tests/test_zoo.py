import pytest

from ov_tests import check_program
from ov_tests.zoo import ZOO


@pytest.mark.parametrize(
    "entry",
    [pytest.param(entry, id=entry.name, marks=[pytest.mark.slow] * entry.slow) for entry in ZOO],
)
def test_zoo_model_lowers_whole_and_matches_eager_on_two_calls(entry):
    model, make_inputs = entry.build()
    outcome = check_program(
        model, make_inputs(0), atol=entry.atol, rtol=entry.rtol, more_inputs=[make_inputs(1)]
    )
    assert outcome.lowered.cpu_nodes == 0, outcome.lowered.rejections
    first, second = outcome.outputs
    assert any((a != b).any() for a, b in zip(first, second, strict=True)), "inputs did not matter"
