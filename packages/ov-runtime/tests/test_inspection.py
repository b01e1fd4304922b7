import pytest
import torch

from ov_runtime import (
    BACKEND_ID,
    ExecutionError,
    compile_specs,
    inspect_program,
    lower,
    runtime_precisions,
)


class ScaleThenAtan2(torch.nn.Module):
    def forward(self, x, y):
        return torch.atan2(x * 2, y), x.shape[0] + 1


def exported():
    n = torch.export.Dim("n", max=16)
    return torch.export.export(
        ScaleThenAtan2(),
        (torch.randn(4, 3), torch.randn(4, 3)),
        dynamic_shapes=({0: n}, {0: n}),
    )


def test_an_exported_program_is_lowered_and_reported_with_reasons():
    report = inspect_program(exported(), compile_specs(inference_precision="bf16"))
    delegate = report.delegates[0]
    assert delegate.backend_id == BACKEND_ID and delegate.payload_version == 4
    assert (delegate.device, dict(delegate.properties)) == (
        "CPU",
        {"INFERENCE_PRECISION_HINT": "bf16"},
    )
    assert list(delegate.inputs) == ["tensor f32[?,3]", "tensor f32[?,3]"]
    assert list(delegate.outputs) == ["tensor f32[?,3]", "scalar i64[]"]  # x.shape[0] + 1
    assert "OpenVINO's PyTorch frontend does not convert aten.atan2.default" in (
        report.cpu_nodes.values()
    )


def test_a_pte_reports_the_same_delegates_and_its_cpu_kernels():
    lowered = lower(exported())
    from_lowering = inspect_program(lowered)
    from_pte = inspect_program(lowered.buffer)
    assert from_pte.delegates == from_lowering.delegates
    assert from_pte.cpu_nodes["forward: aten::atan2.out x1"] == (
        "OpenVINO's PyTorch frontend does not convert aten.atan2"
    )
    assert "delegate 0 of forward: OvExecutorchBackend" in from_pte.format()


def test_a_delegate_of_another_backend_is_listed_without_a_payload_reading():
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    program = to_edge_transform_and_lower(exported(), partitioner=[XnnpackPartitioner()])
    report = inspect_program(program.to_executorch().buffer)
    assert report.delegates and report.delegates[0].backend_id == "XnnpackBackend"
    assert report.delegates[0].payload_version is None


def test_a_kernel_the_frontend_converts_is_named_as_a_check_not_as_unconverted():
    class Float64Add(torch.nn.Module):
        def forward(self, x):
            return x + 1  # float64: kept off OpenVINO by a dtype check

    lowered = lower(Float64Add(), (torch.ones(3, dtype=torch.float64),))
    reasons = inspect_program(lowered.buffer).cpu_nodes
    check = "a dtype or argument check of the partitioner (inspecting the .pt2 names it)"
    assert reasons["forward: aten::add.out x1"] == check
    assert set(reasons.values()) == {check}


def test_every_method_of_a_program_is_reported():
    from executorch.exir import to_edge_transform_and_lower

    from ov_runtime import OpenvinoPartitioner

    class Double(torch.nn.Module):
        def forward(self, x):
            return x * 2

    class PlusOne(torch.nn.Module):
        def forward(self, x):
            return x + 1

    programs = {
        "forward": torch.export.export(Double(), (torch.ones(2),)),
        "plus_one": torch.export.export(PlusOne(), (torch.ones(2),)),
    }
    lowered = to_edge_transform_and_lower(programs, partitioner=[OpenvinoPartitioner()])
    report = inspect_program(lowered.to_executorch().buffer)
    assert sorted(d.method for d in report.delegates) == ["forward", "plus_one"]


def test_runtime_precisions_reads_a_pte_and_follows_the_compile_specs(tmp_path, bf16_or_f32):
    model, x = torch.nn.Linear(64, 32), torch.randn(8, 64)
    path = tmp_path / "linear.pte"
    lower(model, (x,), compile_specs(inference_precision="bf16")).save(path)
    assert runtime_precisions(path) == [{"FullyConnected": {bf16_or_f32: 1}}]
    float32 = lower(model, (x,))
    assert runtime_precisions(float32.buffer) == [{"FullyConnected": {"f32": 1}}]
    with pytest.raises(ExecutionError, match="cannot read the ExecuTorch program"):
        runtime_precisions(float32.buffer[:8] + b"\0" * 64)
