import numpy as np
import openvino as ov
import pytest
import torch
from executorch.exir import to_edge
from executorch.exir.backend.backend_details import PreprocessResult

from ov_convert import ConversionError, OvExecutorchBackend, Payload, element_type
from ov_spec import BACKEND_ID, CompileSpecError


class Mixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x, mask):
        return self.linear(x), mask.cumsum(0), x.to(torch.float16)


def preprocess(model, inputs, specs=()):
    program = to_edge(torch.export.export(model, inputs)).exported_program()
    return OvExecutorchBackend.preprocess(program, list(specs))


def weights(processed: PreprocessResult) -> bytes:
    """The payload's weights: the named data of the result that its payload names."""
    payload = Payload.from_bytes(processed.processed_bytes)
    named = processed.data_store_output
    if payload.named_weights is None:
        return payload.weights
    assert named is not None
    data = named.buffers[named.pte_data[payload.named_weights.key].buffer_index]
    return data if isinstance(data, bytes) else data.to_bytes()  # ExecuTorch's FileBackedData


def read(processed: PreprocessResult) -> ov.Model:
    data = ov.Tensor(np.frombuffer(weights(processed), dtype=np.uint8).copy())
    return ov.Core().read_model(
        model=Payload.from_bytes(processed.processed_bytes).xml, weights=data
    )


def test_class_name_is_the_backend_id():
    assert OvExecutorchBackend.__name__ == BACKEND_ID


def test_payload_carries_a_typed_ir_with_float32_weights():
    inputs = (torch.randn(2, 4), torch.ones(300, dtype=torch.bool))
    model = read(preprocess(Mixed(), inputs))
    assert [(p.get_element_type(), p.get_partial_shape()) for p in model.inputs] == [
        (ov.Type.f32, ov.PartialShape([2, 4])),
        (ov.Type.boolean, ov.PartialShape([300])),
    ]
    # Outputs have the dtypes ExecuTorch allocates for them.
    assert [o.get_element_type() for o in model.outputs] == [ov.Type.f32, ov.Type.i64, ov.Type.f16]
    constants = [n for n in model.get_ops() if n.get_type_name() == "Constant"]
    assert any(c.get_element_type() == ov.Type.f32 and c.get_output_size() for c in constants)
    assert not any(c.get_element_type() == ov.Type.f16 for c in constants)


def test_symbolic_dims_become_dynamic():
    program = to_edge(
        torch.export.export(
            Mixed(),
            (torch.randn(3, 4), torch.ones(5, dtype=torch.bool)),
            dynamic_shapes=({0: torch.export.Dim("n", max=64)}, None),
        )
    ).exported_program()
    model = read(OvExecutorchBackend.preprocess(program, []))
    assert model.inputs[0].get_partial_shape().is_dynamic
    assert model.inputs[0].get_partial_shape()[1] == ov.Dimension(4)


def test_compile_specs_are_resolved_into_the_payloads_device_and_properties():
    from executorch.exir.backend.compile_spec_schema import CompileSpec

    inputs = (torch.randn(2, 4), torch.ones(3, dtype=torch.bool))
    default = Payload.from_bytes(preprocess(Mixed(), inputs).processed_bytes)
    assert (default.device, dict(default.properties)) == (
        "CPU",
        {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"},
    )
    specs = [
        CompileSpec("device", b"GPU"),
        CompileSpec("cache_dir", b"/tmp/cache"),
        CompileSpec("inference_precision", b"f7"),
        CompileSpec("inference_precision", b""),  # the last entry wins: the default
    ]
    gpu = Payload.from_bytes(preprocess(Mixed(), inputs, specs).processed_bytes)
    # Off the CPU, OpenVINO keeps its own precision.
    assert (gpu.device, dict(gpu.properties)) == ("GPU", {"CACHE_DIR": "/tmp/cache"})


class PlusOneAndSize(torch.nn.Module):
    def forward(self, x):
        return x + 1, x.shape[0] * 2


def test_signature_marks_scalar_outputs():
    program = to_edge(
        torch.export.export(
            PlusOneAndSize(), (torch.randn(5, 2),), dynamic_shapes=({0: torch.export.Dim("n")},)
        )
    ).exported_program()
    payload = Payload.from_bytes(OvExecutorchBackend.preprocess(program, []).processed_bytes)
    assert (payload.inputs, payload.outputs) == ("T", "TS")


def test_bad_compile_spec_is_refused():
    from executorch.exir.backend.compile_spec_schema import CompileSpec

    with pytest.raises(CompileSpecError):
        preprocess(
            Mixed(), (torch.randn(2, 4), torch.ones(3, dtype=torch.bool)), [CompileSpec("x", b"")]
        )


def test_unknown_dtype_names_the_value():
    with pytest.raises(ConversionError, match=r"partition input 0 has dtype torch.complex64"):
        element_type(torch.complex64, "partition input 0")


class Accumulator(torch.nn.Module):
    """Writes ``x`` into row ``position`` of a buffer and returns the column sums."""

    cache: torch.Tensor

    def __init__(self, initial: torch.Tensor):
        super().__init__()
        self.register_buffer("cache", initial.clone())

    def forward(self, x, position):
        self.cache.index_copy_(0, position, x)
        return self.cache.sum(0)


def test_a_mutated_buffer_becomes_state_and_neither_input_nor_output():
    rows = torch.zeros(1024, 256)  # 1 MiB of zeros
    processed = preprocess(Accumulator(rows), (torch.ones(1, 256), torch.tensor([0])))
    model = read(processed)
    assert len(model.inputs) == 2 and len(model.outputs) == 1
    (variable,) = model.get_variables()
    assert variable.get_info().variable_id == "cache"
    assert variable.get_info().data_shape == ov.PartialShape([1024, 256])
    # A uniform initial value is a broadcast scalar, not a megabyte of weights.
    assert len(processed.processed_bytes) + len(weights(processed)) < 64 * 1024


def test_state_starts_from_the_buffers_value_and_keeps_each_write():
    initial = torch.arange(12, dtype=torch.float32).reshape(4, 3)
    model = read(preprocess(Accumulator(initial), (torch.ones(1, 3), torch.tensor([0]))))
    request = ov.Core().compile_model(model, "CPU").create_infer_request()
    eager = Accumulator(initial)
    for step in range(3):
        x, position = torch.full((1, 3), 100.0 * (step + 1)), torch.tensor([step])
        request.infer([x.numpy(), position.numpy()])
        np.testing.assert_array_equal(request.get_output_tensor(0).data, eager(x, position).numpy())


def test_a_compiled_blob_is_made_for_the_device_and_imports_to_the_irs_results():
    from executorch.exir.backend.compile_spec_schema import CompileSpec

    inputs = (torch.randn(2, 4), torch.ones(5, dtype=torch.bool))
    processed = preprocess(Mixed(), inputs, [CompileSpec("compiled_blob", b"true")])
    payload = Payload.from_bytes(processed.processed_bytes)
    assert payload.compiled_blob is not None
    core = ov.Core()
    assert payload.compiled_blob.openvino_version == ov.get_version()
    assert payload.compiled_blob.device_name == core.get_property("CPU", "FULL_DEVICE_NAME")
    # As the runtime does: the CPU plugin applies the properties given at import
    # (without them it picks bf16 on a CPU with bf16 units).
    imported = core.import_model(payload.compiled_blob.data, "CPU", dict(payload.properties))
    compiled = core.compile_model(read(processed), "CPU", dict(payload.properties))
    values = [input.numpy() for input in inputs]
    for got, expected in zip(imported(values).values(), compiled(values).values(), strict=True):
        np.testing.assert_array_equal(got, expected)
    assert Payload.from_bytes(preprocess(Mixed(), inputs).processed_bytes).compiled_blob is None


def test_a_compiled_blob_for_a_device_missing_here_names_the_devices_found():
    from executorch.exir.backend.compile_spec_schema import CompileSpec

    specs = [CompileSpec("device", b"NPU.7"), CompileSpec("compiled_blob", b"true")]
    inputs = (torch.randn(2, 4), torch.ones(5, dtype=torch.bool))
    with pytest.raises(
        ConversionError, match=r"(?s)device 'NPU.7'.*'compiled_blob'.*devices here: .*CPU"
    ):
        preprocess(Mixed(), inputs, specs)


def test_preprocess_gets_a_copy_of_the_partition_that_shares_its_weights():
    program = to_edge(
        torch.export.export(Mixed(), (torch.randn(2, 4), torch.ones(3)))
    ).exported_program()
    copied = OvExecutorchBackend.copy_exported_program_for_preprocess(program, [])
    assert copied.graph_module is not program.graph_module
    assert copied.graph is not program.graph
    assert copied.state_dict.keys() == program.state_dict.keys()
    assert all(copied.state_dict[name] is value for name, value in program.state_dict.items())
    before = {name: value.clone() for name, value in program.state_dict.items()}
    OvExecutorchBackend.preprocess(copied, [])
    assert all(torch.equal(program.state_dict[name], value) for name, value in before.items())
