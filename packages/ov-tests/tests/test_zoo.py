import pytest

from ov_tests import check_program
from ov_tests.zoo import ZOO


# ExecuTorch's SoftmaxModule example calls softmax without a dim.
@pytest.mark.filterwarnings("ignore:Implicit dimension choice for softmax")
@pytest.mark.parametrize(
    "entry",
    [pytest.param(entry, id=entry.name, marks=[pytest.mark.slow] * entry.slow) for entry in ZOO],
)
def test_zoo_model_lowers_whole_and_matches_eager_on_two_calls(entry):
    model, make_inputs = entry.build()
    outcome = check_program(
        model,
        make_inputs(0),
        atol=entry.atol,
        rtol=entry.rtol,
        more_inputs=[make_inputs(1)],
        cpu_ops=entry.cpu_ops,
    )
    assert entry.cpu_ops or outcome.lowered.cpu_nodes == 0, outcome.lowered.rejections
    first, second = outcome.outputs
    assert any((a != b).any() for a, b in zip(first, second, strict=True)), "inputs did not matter"


def test_every_executorch_example_is_in_the_zoo_or_has_a_reason():
    from executorch.examples.models import MODEL_NAME_TO_MODEL

    from ov_tests.zoo import EXAMPLES_IN_ZOO, EXAMPLES_LEFT_OUT

    assert set(MODEL_NAME_TO_MODEL) == EXAMPLES_IN_ZOO | EXAMPLES_LEFT_OUT.keys()
    assert not EXAMPLES_IN_ZOO & EXAMPLES_LEFT_OUT.keys()
