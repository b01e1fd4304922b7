import pytest

from ov_tests import check_program
from ov_tests.models import SENTENCES, minilm, resnet18


@pytest.mark.slow
def test_resnet18_with_seeded_weights_matches_eager():
    model, inputs = resnet18(batch=2)
    check_program(model, inputs, atol=1e-4, rtol=0)


@pytest.mark.slow
def test_minilm_is_delegated_whole_but_the_int64_mask_cast():
    model, inputs = minilm(SENTENCES[:2])
    # The attention mask is an int64 input, not proved to fit in 32 bits.
    outcome = check_program(
        model,
        inputs,
        atol=1e-5,
        cpu_ops=("dim_order_ops::_to_dim_order_copy", "aten::unsqueeze_copy"),
    )
    kept = [why for why in outcome.lowered.rejections.values() if "32 bits" in why]
    assert len(kept) == 2, outcome.lowered.rejections
