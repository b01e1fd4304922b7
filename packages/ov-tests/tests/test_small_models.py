import pytest
import torch

from ov_tests import check_program, cpu_operators, delegate_ids
from ov_tests import models as m

CASES = {
    "add": lambda: (m.Add(), (torch.randn(4, 5), torch.randn(4, 5))),
    "linear": lambda: (m.Linear(), (torch.randn(3, 16),)),
    "conv2d_batchnorm": lambda: (m.ConvBatchNorm(), (torch.randn(2, 3, 12, 12),)),
    "softmax": lambda: (m.Softmax(), (torch.randn(4, 33) * 10,)),
    "mlp": lambda: (m.Mlp(), (torch.randn(8, 32),)),
}


@pytest.mark.parametrize("case", CASES)
def test_model_matches_eager_in_float32(case):
    torch.manual_seed(sum(map(ord, case)))
    model, inputs = CASES[case]()
    outcome = check_program(model, inputs, atol=1e-5, rtol=1e-5)
    assert outcome.lowered.cpu_nodes == 0


def test_unconverted_op_stays_on_cpu_and_the_program_still_lowers():
    torch.manual_seed(0)
    outcome = check_program(
        m.SplitByAtan2(), (torch.randn(5, 8),), atol=1e-5, cpu_ops={"aten::atan2"}
    )
    assert cpu_operators(outcome.lowered) == {"aten::atan2"}
    assert len(delegate_ids(outcome.lowered)) == 2
    assert "atan2" in " ".join(outcome.lowered.rejections.values())


def test_program_is_called_again_with_new_inputs():
    torch.manual_seed(1)
    model = m.Mlp()
    check_program(
        model,
        (torch.randn(8, 32),),
        atol=1e-5,
        rtol=1e-5,
        more_inputs=[(torch.randn(8, 32),), (torch.full((8, 32), -3.0),)],
    )


def test_channels_last_inputs_and_outputs_keep_their_memory_format():
    torch.manual_seed(2)
    x = torch.randn(2, 3, 12, 12).to(memory_format=torch.channels_last)
    batch = torch.export.Dim("batch", min=1, max=8)
    outcome = check_program(
        m.ConvBatchNorm(),
        (x,),
        atol=1e-5,
        rtol=1e-5,
        dynamic_shapes=({0: batch},),
        more_inputs=[(torch.randn(5, 3, 12, 12).to(memory_format=torch.channels_last),)],
    )
    for (output,) in outcome.outputs:
        assert output.is_contiguous(memory_format=torch.channels_last)
