"""ETDump profiling: the delegate's compile, each inference and OpenVINO's layers as ExecuTorch events.

ExecuTorch hands a backend the method's event tracer in ``init`` and
``execute`` (``BackendInitContext::event_tracer``,
``BackendExecutionContext::event_tracer``); ``executorch.runtime`` makes one
with ``load_program(..., enable_etdump=True)``, and ``executorch.devtools.Inspector``
reads what it wrote.
"""

import warnings

import pytest
import torch
from executorch.devtools import Inspector
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from ov_runtime import (
    ExecutionError,
    OpenvinoPartitioner,
    compile_specs,
    load_program,
    lower,
    read_etdump,
)
from ov_runtime.cli import main
from ov_runtime.facade.profiling import COMPILE_EVENT, INFER_EVENT


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(32, 16)

    def forward(self, x):
        return torch.relu(self.linear(x)).sin()


@pytest.fixture(scope="module")
def model_and_input():
    torch.manual_seed(0)
    return Block().eval(), torch.randn(4, 32)


def standard_pte(model, x, tmp_path, **specs):
    """The .pte of ExecuTorch's own lowering API with this backend's partitioner."""
    exported = torch.export.export(model, (x,))
    partitioner = OpenvinoPartitioner(compile_specs(**specs))
    program = to_edge_transform_and_lower(exported, partitioner=[partitioner]).to_executorch()
    path = tmp_path / "model.pte"
    path.write_bytes(program.buffer)
    return path


def events(etdump):
    """Each event block's name and its events: (name, delegated, runs, metadata of the last run)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Inspector warns of the debug buffer not written
        inspector = Inspector(etdump_path=str(etdump))
    found = []
    for block in inspector.event_blocks:
        for event in block.events:
            metadata = event.delegate_debug_metadatas
            last = metadata[-1] if metadata else b""
            runs = len(event.perf_data.raw) if event.perf_data is not None else 0
            found.append((block.name, event.name, event.is_delegated_op, runs, bytes(last)))
    return found


def layers_of(found):
    return [event for event in found if event[2] and event[1] not in (COMPILE_EVENT, INFER_EVENT)]


def test_executorch_runtime_records_the_compile_the_inferences_and_openvinos_layers(
    model_and_input, tmp_path
):
    model, x = model_and_input
    pte = standard_pte(model, x, tmp_path, perf_count=True)
    program = Runtime.get().load_program(pte, enable_etdump=True)
    method = program.load_method("forward")
    for _ in range(3):
        torch.testing.assert_close(method.execute([x])[0], model(x), rtol=0, atol=1e-5)
    etdump = tmp_path / "run.etdp"
    program.write_etdump_result_to_file(str(etdump), str(tmp_path / "debug.bin"))

    found = events(etdump)
    compile_event = next(event for event in found if event[1] == COMPILE_EVENT)
    assert compile_event[3] == 1 and b"PERF_COUNT=YES" in compile_event[4]
    assert b"INFERENCE_PRECISION_HINT=f32" in compile_event[4]
    infer = [event for event in found if event[1] == INFER_EVENT]
    assert len(infer) == 1 and infer[0][3] == 3  # one delegate, three calls, one event block
    layers = layers_of(found)
    assert any("addmm" in name or "linear" in name for _, name, *_ in layers)
    for _, name, _, runs, metadata in layers:
        layer_type, _, exec_type = metadata.decode().partition(" ")
        assert name and runs == 3 and layer_type and exec_type, (name, metadata)
    assert "FullyConnected" in {event[4].decode().split(" ")[0] for event in layers}


def test_without_perf_count_the_delegate_logs_only_its_compile_and_inferences(
    model_and_input, tmp_path
):
    model, x = model_and_input
    program = Runtime.get().load_program(standard_pte(model, x, tmp_path), enable_etdump=True)
    program.load_method("forward").execute([x])
    etdump = tmp_path / "run.etdp"
    program.write_etdump_result_to_file(str(etdump), str(tmp_path / "debug.bin"))
    found = events(etdump)
    assert [event[1] for event in found if event[2]] == [COMPILE_EVENT, INFER_EVENT]
    assert b"PERF_COUNT" not in found[0][4]


def test_the_facade_writes_an_etdump_and_records_anew_after_each_write(model_and_input, tmp_path):
    model, x = model_and_input
    pte = lower(model, (x,)).buffer
    program = load_program(pte, {"perf_count": True}, enable_etdump=True)
    method = program.load_method("forward")
    for _ in range(3):
        method.execute([x])
    program.write_etdump(tmp_path / "first.etdp")
    method.execute([x])
    program.write_etdump(tmp_path / "second.etdp")

    first, second = read_etdump(tmp_path / "first.etdp"), read_etdump(tmp_path / "second.etdp")
    assert (first.calls, second.calls) == (3, 1)
    assert first.layers and {layer.name for layer in first.layers} == {
        layer.name for layer in second.layers
    }
    assert 0 < first.openvino_ms <= first.call_ms
    assert 0 <= first.outside_share < 1
    # The load-time option reached OpenVINO; the compile event is in the first file only.
    compiled = [event for event in events(tmp_path / "first.etdp") if event[1] == COMPILE_EVENT]
    assert len(compiled) == 1 and b"runtime_options=PERF_COUNT" in compiled[0][4]
    assert not any(event[1] == COMPILE_EVENT for event in events(tmp_path / "second.etdp"))


def test_an_etdump_needs_a_program_loaded_with_one_and_a_writable_path(model_and_input, tmp_path):
    model, x = model_and_input
    pte = lower(model, (x,)).buffer
    with pytest.raises(ExecutionError, match=r"enable_etdump=True"):
        load_program(pte).write_etdump(tmp_path / "none.etdp")
    program = load_program(pte, enable_etdump=True)
    program.load_method("forward").execute([x])
    with pytest.raises(ExecutionError, match=r"cannot write the ETDump"):
        program.write_etdump(tmp_path / "no_such_folder" / "run.etdp")
    with pytest.raises(FileNotFoundError, match="no ETDump"):
        read_etdump(tmp_path / "absent.etdp")


def test_a_file_without_calls_is_refused(model_and_input, tmp_path):
    model, x = model_and_input
    program = load_program(lower(model, (x,)).buffer, enable_etdump=True)
    program.load_method("forward")
    program.write_etdump(tmp_path / "load_only.etdp")
    with pytest.raises(ValueError, match="records no call of a method"):
        read_etdump(tmp_path / "load_only.etdp")


def test_the_profile_command_prints_the_top_layers_and_the_share_outside_openvino(
    model_and_input, tmp_path, capsys
):
    model, x = model_and_input
    pte, inputs = tmp_path / "model.pte", tmp_path / "inputs.pt"
    lower(model, (x,)).save(str(pte))
    torch.save((x,), inputs)
    etdump = tmp_path / "profile.etdp"
    arguments = ["profile", str(pte), "--inputs", str(inputs), "--calls", "5", "--top", "2"]
    assert main([*arguments, "--etdump", str(etdump)]) == 0
    text = capsys.readouterr().out
    assert "calls: 5;" in text and "outside OpenVINO:" in text
    assert "top 2 of" in text and "FullyConnected" in text
    assert read_etdump(etdump).calls == 5
    assert main(["profile", str(pte), "--inputs", str(inputs), "--calls", "0"]) == 2
    assert "calls must be at least 1" in capsys.readouterr().err
