"""Load-time backend options: one ``.pte``, its device and OpenVINO properties chosen where it loads.

ExecuTorch hands a backend the options an application gives its id when a method
loads (``LoadBackendOptionsMap``; ``BackendInitContext::runtime_specs`` in ``init``).
"""

import pytest
import torch

from ov_runtime import (
    CompileSpecError,
    ExecutionError,
    compile_specs,
    compiled_delegates,
    load_program,
    lower,
)
from ov_spec import runtime_options


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(64, 64)

    def forward(self, x):
        return self.linear(x).sin()


@pytest.fixture(scope="module")
def model_and_input():
    torch.manual_seed(0)
    return Block().eval(), torch.randn(8, 64)


def record_and_error(pte, inputs, expected, options=None, method_options=None):
    method = load_program(pte, options).load_method("forward", method_options)
    error = (method.execute([inputs])[0] - expected).abs().max().item()
    return compiled_delegates()[-1], error


def test_the_precision_chosen_at_load_overrides_the_lowered_one(model_and_input, bf16_or_f32):
    model, x = model_and_input
    expected = model(x)
    pte = lower(model, (x,)).buffer  # f32, as lowered by default on the CPU
    f32, f32_error = record_and_error(pte, x, expected)
    bf16, bf16_error = record_and_error(pte, x, expected, {"inference_precision": "bf16"})
    assert f32["INFERENCE_PRECISION_HINT"] == "f32" and "runtime_options" not in f32
    assert bf16["INFERENCE_PRECISION_HINT"] == bf16_or_f32
    assert bf16["runtime_options"] == "INFERENCE_PRECISION_HINT"
    if bf16_or_f32 == "bf16":
        assert bf16_error > 10 * max(f32_error, 1e-7)
    # The other way, by OpenVINO's own property name, for one method.
    lowered_bf16 = lower(model, (x,), compile_specs(inference_precision="bf16")).buffer
    back, back_error = record_and_error(
        lowered_bf16, x, expected, method_options={"INFERENCE_PRECISION_HINT": "f32"}
    )
    assert back["INFERENCE_PRECISION_HINT"] == "f32" and back_error < 1e-5


def test_a_device_that_is_not_here_fails_the_load_with_the_devices_that_are(model_and_input):
    model, x = model_and_input
    with pytest.raises(ExecutionError, match=r"(?s)device 'NPU'.*devices available here: .*CPU"):
        load_program(lower(model, (x,)).buffer, {"device": "NPU"}).load_method()


@pytest.mark.parametrize(
    ("options", "reason"),
    [({"NUM_STREAMS": "banana"}, "banana"), ({"NO_SUCH_PROPERTY": "1"}, "NO_SUCH_PROPERTY")],
    ids=["bad_value", "unknown_property"],
)
def test_a_property_openvino_refuses_fails_the_load_with_its_reason(
    model_and_input, options, reason
):
    model, x = model_and_input
    with pytest.raises(ExecutionError, match=reason):
        load_program(lower(model, (x,)).buffer, options).load_method()


def test_a_runtime_option_that_changes_a_compiled_blobs_settings_compiles_the_ir(
    model_and_input, caplog
):
    model, x = model_and_input
    pte = lower(model, (x,), compile_specs(compiled_blob=True)).buffer
    assert record_and_error(pte, x, model(x))[0]["loaded_from"] == "blob"
    # The payload's own values change nothing: the blob still applies.
    same = record_and_error(pte, x, model(x), {"device": "CPU", "inference_precision": "f32"})
    assert same[0]["loaded_from"] == "blob" and "runtime_options" not in same[0]
    changed, _ = record_and_error(pte, x, model(x), {"INFERENCE_NUM_THREADS": 1})
    assert changed["loaded_from"] == "ir" and changed["runtime_options"] == "INFERENCE_NUM_THREADS"


def test_friendly_keys_are_checked_before_loading_and_property_names_pass_through():
    assert runtime_options(
        {"device": "CPU", "enable_cpu_pinning": False, "cache_dir": "none", "NUM_STREAMS": 2}
    ) == {"device": "CPU", "ENABLE_CPU_PINNING": "NO", "CACHE_DIR": "", "NUM_STREAMS": "2"}
    with pytest.raises(CompileSpecError, match="'inference_precision' has the value 'f7'"):
        runtime_options({"inference_precision": "f7"})
    with pytest.raises(CompileSpecError, match="'compiled_blob' is read at lowering only"):
        runtime_options({"compiled_blob": True})
    with pytest.raises(CompileSpecError, match="unknown load-time option 'precision'"):
        runtime_options({"precision": "f32"})


def test_a_loaded_method_keeps_its_options(model_and_input):
    model, x = model_and_input
    program = load_program(lower(model, (x,)).buffer)
    program.load_method()
    program.load_method()  # no options given: the loaded method as it is
    with pytest.raises(ExecutionError, match="loaded already"):
        program.load_method("forward", {"inference_precision": "bf16"})
