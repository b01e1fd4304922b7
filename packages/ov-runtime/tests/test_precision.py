"""Float32 by default on CPU, an explicit precision honoured, read back from the compiled delegate."""

import gc

import pytest
import torch
from executorch.exir.backend.compile_spec_schema import CompileSpec

from ov_runtime import compile_specs, compiled_delegates, load_program, lower, run


class Addmm(torch.nn.Module):
    def forward(self, bias, a, b):
        return torch.addmm(bias, a, b)


def addmm_inputs():
    generator = torch.Generator().manual_seed(0)
    return tuple(torch.randn(256, 256, generator=generator) for _ in range(3))


def run_and_read_precision(specs, inputs):
    program = load_program(lower(Addmm(), inputs, specs).buffer)
    gc.collect()  # programs of earlier tests go, and their delegates' records with them
    before = len(compiled_delegates())
    output = run(program, inputs)[0]
    records = compiled_delegates()
    assert len(records) == before + 1, "one delegate was compiled for this program"
    return output, records[-1]


def error_to_float64(output, inputs):
    bias, a, b = (t.double() for t in inputs)
    return (output.double() - torch.addmm(bias, a, b)).abs().max().item()


def test_cpu_computes_in_float32_by_default():
    inputs = addmm_inputs()
    output, record = run_and_read_precision(None, inputs)
    assert record == {
        "device": "CPU",
        "loaded_from": "ir",
        "INFERENCE_PRECISION_HINT": "f32",
        "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
    }
    assert error_to_float64(output, inputs) < 1e-4


def test_explicit_bf16_is_applied_when_the_program_loads(bf16_or_f32):
    inputs = addmm_inputs()
    _, record = run_and_read_precision(compile_specs(inference_precision="bf16"), inputs)
    assert record["INFERENCE_PRECISION_HINT"] == bf16_or_f32


def test_bf16_really_computes_in_bf16_on_cpus_with_bf16_units(bf16_or_f32):
    if bf16_or_f32 != "bf16":
        pytest.skip("this CPU has no bf16 units, so OpenVINO computes bf16 in f32")
    inputs = addmm_inputs()
    output, _ = run_and_read_precision(compile_specs(inference_precision="bf16"), inputs)
    assert error_to_float64(output, inputs) > 1e-4


def test_runtime_takes_the_last_entry_like_lowering_does():
    # Lowering keeps only the last (empty) entry; a runtime that took the first
    # would refuse "f7" and fail to load the program.
    specs = [CompileSpec("inference_precision", b"f7"), CompileSpec("inference_precision", b"")]
    inputs = addmm_inputs()
    output, record = run_and_read_precision(specs, inputs)
    assert record["INFERENCE_PRECISION_HINT"] == "f32"
    assert error_to_float64(output, inputs) < 1e-4


def test_cache_dir_is_written_when_the_program_loads(tmp_path):
    cache = tmp_path / "cache"
    inputs = addmm_inputs()
    run_and_read_precision(compile_specs(cache_dir=str(cache)), inputs)
    assert cache.is_dir() and any(cache.iterdir())


def test_auto_restricted_to_the_cpu_also_computes_in_float32():
    inputs = addmm_inputs()
    output, record = run_and_read_precision(compile_specs(device="AUTO:CPU"), inputs)
    assert record["device"] == "AUTO:CPU"
    assert error_to_float64(output, inputs) < 1e-4


def test_compile_specs_take_a_path_and_empty_strings(tmp_path):
    specs = compile_specs(inference_precision="", cache_dir=tmp_path / "cache")
    assert [(s.key, s.value) for s in specs] == [
        ("device", b"CPU"),
        ("cache_dir", str(tmp_path / "cache").encode()),
    ]


def with_extra_properties(monkeypatch, extra):
    """Lower as if ov_spec resolved the compile specs into ``extra`` properties too."""
    from ov_spec import OpenvinoOptions

    resolved = OpenvinoOptions.properties
    monkeypatch.setattr(
        OpenvinoOptions,
        "properties",
        lambda self, **kwargs: {**resolved(self, **kwargs), **extra},
    )


def test_every_property_the_payload_carries_is_applied(monkeypatch):
    # A key added to ov_spec needs no change in the runtime: it applies what it gets.
    with_extra_properties(monkeypatch, {"PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": "2"})
    _, record = run_and_read_precision(None, addmm_inputs())
    assert record == {
        "device": "CPU",
        "loaded_from": "ir",
        "INFERENCE_PRECISION_HINT": "f32",
        "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
        "PERFORMANCE_HINT": "THROUGHPUT",
        "NUM_STREAMS": "2",
    }


def test_a_property_openvino_refuses_fails_the_load_with_its_name(monkeypatch):
    from ov_runtime import ExecutionError

    with_extra_properties(monkeypatch, {"NO_SUCH_PROPERTY": "1"})
    with pytest.raises(
        ExecutionError, match=r"(?s)cannot compile the model for device 'CPU'.*NO_SUCH"
    ):
        run_and_read_precision(None, addmm_inputs())


def test_more_properties_than_the_runtime_applies_are_refused(monkeypatch):
    from ov_runtime import ExecutionError

    with_extra_properties(monkeypatch, {f"KEY_{i}": "1" for i in range(15)})
    with pytest.raises(ExecutionError, match=r"carries 17 OpenVINO properties; .* at most 16"):
        run_and_read_precision(None, addmm_inputs())


def test_a_record_goes_when_its_delegate_is_destroyed():
    gc.collect()
    before = compiled_delegates()
    program = load_program(lower(Addmm(), addmm_inputs()).buffer)
    run(program, addmm_inputs())
    assert len(compiled_delegates()) == len(before) + 1
    del program
    gc.collect()
    assert compiled_delegates() == before


def test_performance_specs_are_applied_when_the_program_loads():
    specs = compile_specs(performance_hint="THROUGHPUT", num_streams="2", kv_cache_precision="u8")
    _, record = run_and_read_precision(specs, addmm_inputs())
    assert record["PERFORMANCE_HINT"] == "THROUGHPUT"
    assert record["NUM_STREAMS"] == "2"
    assert record["KV_CACHE_PRECISION"] == "u8"
