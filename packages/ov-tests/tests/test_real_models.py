import io

import pytest
import torch

from ov_tests import check_program


@pytest.mark.slow
def test_resnet18_with_seeded_weights_matches_eager():
    torchvision = pytest.importorskip(
        "torchvision", reason="torchvision comes with the workspace's models group"
    )
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None)
    check_program(model, (torch.randn(2, 3, 224, 224),), atol=1e-4, rtol=0)


@pytest.mark.slow
def test_minilm_demo_matches_eager_within_1e_5():
    from ov_runtime.cli.demo import TOLERANCE, run_demo

    report = io.StringIO()
    assert run_demo(out=report) == 0, report.getvalue()
    text = report.getvalue()
    assert TOLERANCE == 1e-5
    assert "OK: the .pte matches eager" in text
    difference = float(text.split("max abs difference from eager: ")[1].split()[0])
    assert difference <= 1e-5


@pytest.mark.slow
def test_minilm_is_delegated_whole():
    from ov_runtime.cli.demo import SENTENCES
    from ov_runtime.models import minilm

    model, inputs = minilm(SENTENCES[:2])
    outcome = check_program(model, inputs, atol=1e-5)
    assert outcome.lowered.cpu_nodes == 0, outcome.lowered.rejections
