"""A delegate called with arguments its compiled model does not take fails with a logged reason.

ExecuTorch checks a method's own inputs, so these programs carry a payload
swapped for one whose model expects something else, the way a stale or
foreign payload would.
"""

import dataclasses
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
import torch
from openvino import opset13 as ops

from ov_convert import MAGIC, Payload, serialize
from ov_convert.payload import payload_end
from ov_runtime import ExecutionError, load_program, lower, run


class Affine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.linear(x)


def with_payload_of(pte: bytes, model: ov.Model, inputs: str = "T", outputs: str = "T") -> bytes:
    """Put ``model``'s IR, with the signature ``inputs/outputs``, in place of the program's payload.

    The XML and weights are padded so that the payload keeps its size; the new weights
    are carried in the section where the original named its own.
    """
    start = pte.index(MAGIC)
    end = payload_end(pte, start)
    original, size = Payload.from_bytes(pte[start:end]), end - start
    named = original.named_weights
    room = len(named.to_bytes()) if named else len(original.weights)  # the weights section
    with tempfile.TemporaryDirectory() as folder:
        xml, weights_path = serialize(model, Path(folder))
        weights = weights_path.read_bytes()
    xml_size = len(original.xml) - len(inputs + outputs) + len(original.inputs + original.outputs)
    assert len(xml) <= xml_size and len(weights) <= room
    padded = dataclasses.replace(
        original,
        xml=xml + b" " * (xml_size - len(xml)),
        weights=weights + b"\0" * (room - len(weights)),
        named_weights=None,
        inputs=inputs,
        outputs=outputs,
    ).to_bytes()
    assert len(padded) == size
    return pte[:start] + padded + pte[start + size :]


def model_of(parameters, output):
    return ov.Model([output], parameters, "swapped")


@pytest.fixture(scope="module")
def pte():
    return lower(Affine(), (torch.randn(2, 3),)).buffer


def run_swapped(pte, model, capfd, inputs="T"):
    program = load_program(with_payload_of(pte, model, inputs))
    with pytest.raises(ExecutionError):
        run(program, [torch.randn(2, 3)])
    return capfd.readouterr().err


def test_the_swap_itself_keeps_a_working_program(pte, capfd):
    x = ops.parameter([2, 3], ov.Type.f32)
    program = load_program(with_payload_of(pte, model_of([x], ops.multiply(x, np.float32(2)))))
    inputs = torch.randn(2, 3)
    assert torch.equal(run(program, [inputs])[0], inputs * 2)


def test_wrong_number_of_arguments(pte, capfd):
    x, y = ops.parameter([2, 3], ov.Type.f32), ops.parameter([2, 3], ov.Type.f32)
    err = run_swapped(pte, model_of([x, y], ops.add(x, y)), capfd, inputs="TT")
    assert "the delegate takes 2 inputs and 1 outputs but was called with 2 arguments" in err


def test_model_and_signature_that_disagree(pte, capfd):
    x, y = ops.parameter([2, 3], ov.Type.f32), ops.parameter([2, 3], ov.Type.f32)
    err = run_swapped(pte, model_of([x, y], ops.add(x, y)), capfd)
    assert (
        "payload signature lists 1 inputs and 1 outputs, but its IR has 2 Parameters and 1 "
        "Results" in err
    )


def test_wrong_input_dtype(pte, capfd):
    x = ops.parameter([2, 3], ov.Type.i32)
    err = run_swapped(pte, model_of([x], ops.convert(x, ov.Type.f32)), capfd)
    assert "delegate input 0 has dtype Float; the compiled model expects i32" in err


def test_wrong_input_rank(pte, capfd):
    x = ops.parameter([6], ov.Type.f32)
    err = run_swapped(pte, model_of([x], ops.reshape(x, [2, 3], special_zero=False)), capfd)
    assert "delegate input 0 has rank 2; the compiled model expects rank 1" in err


def test_wrong_output_dtype(pte, capfd):
    x = ops.parameter([2, 3], ov.Type.f32)
    err = run_swapped(pte, model_of([x], ops.convert(x, ov.Type.i64)), capfd)
    assert "delegate output 0 has dtype Float; the compiled model expects i64" in err


def test_static_output_of_another_shape(pte, capfd):
    x = ops.parameter([2, 3], ov.Type.f32)
    err = run_swapped(pte, model_of([x], ops.concat([x, x], 0)), capfd)
    assert "cannot bind delegate output 0" in err


def test_dynamic_output_larger_than_planned(pte, capfd):
    x = ops.parameter([-1, 3], ov.Type.f32)
    err = run_swapped(pte, model_of([x], ops.concat([x, x], 0)), capfd)
    assert "cannot resize delegate output 0" in err


def test_the_delegates_reason_reaches_the_python_error(pte):
    x = ops.parameter([2, 3], ov.Type.i32)
    program = load_program(with_payload_of(pte, model_of([x], ops.convert(x, ov.Type.f32))))
    with pytest.raises(ExecutionError, match="OpenVINO delegate: delegate input 0 has dtype Float"):
        run(program, [torch.randn(2, 3)])


def test_a_missing_device_is_named_in_the_python_error():
    from ov_runtime import compile_specs

    lowered = lower(Affine(), (torch.randn(2, 3),), compile_specs(device="TEMPLATE"))
    with pytest.raises(
        ExecutionError, match="OpenVINO delegate: cannot compile the model for device 'TEMPLATE'"
    ) as refused:
        run(lowered.buffer, [torch.randn(2, 3)])
    assert "(devices available here: CPU" in str(refused.value)
