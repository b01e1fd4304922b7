"""Delegate outputs the model does not compute: inputs, constants, repeated values."""

import pytest
import torch

from ov_tests import check_program
from ov_tests.models import Function

CASES = {
    "transpose(0, 0)": lambda x: x.transpose(0, 0),
    "transpose(1, 1) beside x + 1": lambda x: (x.transpose(1, 1), x + 1),
    "x + 1 beside transpose(0, 0)": lambda x: (x + 1, x.transpose(0, 0)),
    "view to the same shape": lambda x: (x.view(20, 32), x * 2),
    "clone": lambda x: (x.clone(), x - 1),
    "expand to the same shape": lambda x: (x.expand(20, 32), x.abs()),
    "alias_copy": lambda x: (torch.ops.aten.alias_copy(x), -x),
    "one value twice": lambda x: (y := x * 3, y),
    "one value three times": lambda x: (y := x.relu(), y, y),
    "a constant": lambda x: (x + 1, torch.full((3,), 2.0)),
    # A 0-d constant: OpenVINO's C API has no shape object for rank 0.
    "a 0-d constant": lambda x: (x + 1, torch.tensor(0.5)),
    "clamp to a 0-d constant bound": lambda x: torch.clamp(x, min=x[:1], max=torch.tensor(0.5)),
    "cosine similarity": lambda x: torch.nn.functional.cosine_similarity(x, x + 1, eps=1e-3),
    "an input between CPU ops": lambda x: (torch.atan2(x, x + 1), x.transpose(0, 0), x * 2),
    "a value and its alias": lambda x: (y := x * 2, y.transpose(0, 0), y.clone()),
    "an identity permute": lambda x: (x.permute(0, 1), x + 2),
    "an input from a CPU op": lambda x: (y := torch.atan2(x, x + 1), y.transpose(0, 0), y * 2),
}


@pytest.mark.parametrize("function", CASES.values(), ids=CASES.keys())
def test_pass_through_outputs_equal_eager_on_every_call(function):
    x = torch.randn(20, 32)
    check_program(
        Function(function),
        (x,),
        atol=1e-6,
        cpu_ops={"aten::atan2", "aten::clamp"},  # clamp.Tensor: the frontend does not convert it
        more_inputs=[(torch.randn(20, 32),), (x,)],
    )


def test_pass_through_outputs_are_marked_copied_in_the_payload():
    from ov_convert import Payload
    from ov_convert.payload import payload_end
    from ov_runtime import lower

    function = lambda x: (x.transpose(0, 0), x + 1, (y := x * 2), y.transpose(1, 1))  # noqa: E731
    pte = lower(Function(function), (torch.ones(2, 3),)).buffer
    start = pte.index(b"OVEXIR\0\0")  # the named weights follow the payload
    payload = Payload.from_bytes(pte[start : payload_end(pte, start)])
    assert (payload.inputs, payload.outputs) == ("T", "CTTC")
