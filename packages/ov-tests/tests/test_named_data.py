"""Delegates' weights as ExecuTorch named data: stored once across methods, in the .pte or a .ptd.

Each program goes through ExecuTorch's own API (``to_edge_transform_and_lower``, then
``executorch.runtime``) and through this project's ``load_program``.
"""

import io
import struct
import subprocess
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.passes.external_constants_pass import (
    delegate_external_constants_pass_unlifted,
)
from executorch.runtime import Runtime

from ov_convert import ConversionError
from ov_convert.named_weights import pool_weights
from ov_runtime import (
    ExecutionError,
    OpenvinoPartitioner,
    compile_specs,
    inspect_program,
    load_program,
    lower,
)
from ov_runtime.native import cpp_runner

FIXTURES = Path(__file__).parent / "fixtures"


class Encoder(torch.nn.Module):
    """Two linears around a reshape that depends on the batch: each method's IR differs."""

    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.Linear(256, 512)
        self.down = torch.nn.Linear(512, 256)

    def forward(self, x):
        hidden = self.up(x).relu().reshape(x.shape[0], 2, 256)
        return self.down(hidden.reshape(x.shape[0], 512))


def weight_bytes(model: torch.nn.Module) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())


def lowered(programs, **specs):
    return to_edge_transform_and_lower(
        programs, partitioner=[OpenvinoPartitioner(compile_specs(**specs))]
    ).to_executorch()


def named_data(pte: bytes) -> dict[str, int]:
    """The ``.pte``'s own named data: each key and its size."""
    data = deserialize_pte_binary(pte).named_data
    if data is None:
        return {}
    return {key: len(data.buffers[entry.buffer_index]) for key, entry in data.pte_data.items()}


def test_two_methods_store_their_weights_once_and_both_run(tmp_path):
    torch.manual_seed(0)
    model = Encoder().eval()
    one, four = torch.randn(1, 256), torch.randn(4, 256)
    program = lowered(
        {"one": torch.export.export(model, (one,)), "four": torch.export.export(model, (four,))}
    )
    (entry,) = named_data(program.buffer).values()
    assert weight_bytes(model) <= entry < weight_bytes(model) * 1.01
    assert len(program.buffer) <= 1.05 * weight_bytes(model)  # one copy of the weights, not two
    pte = tmp_path / "encoder.pte"
    pte.write_bytes(program.buffer)

    loaded = Runtime.get().load_program(pte)
    facade = load_program(pte)
    for name, x in (("one", one), ("four", four)):
        expected = model(x)
        (got,) = loaded.load_method(name).execute([x])
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
        (got,) = facade.load_method(name).execute((x,))
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
    report = inspect_program(pte)
    assert len(report.delegates) == 2
    assert all(f"{entry} bytes of named data" in d.weights for d in report.delegates)


def external_program(model: torch.nn.Module, x: torch.Tensor, tag=lambda node: "weights"):
    """``model`` lowered with its constants tagged for a data file by ExecuTorch's own pass."""
    tagged = torch.export.export(model, (x,)).module()
    delegate_external_constants_pass_unlifted(module=tagged, gen_tag_fn=tag)
    # A strict export keeps the tags on the constants' placeholders (as ExecuTorch's tests do).
    return lowered(torch.export.export(tagged, (x,), strict=True))


@pytest.fixture(scope="module")
def external(tmp_path_factory):
    torch.manual_seed(1)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 8)
    ).eval()
    x = torch.randn(3, 64)
    program = external_program(model, x)
    folder = tmp_path_factory.mktemp("external")
    (folder / "model.pte").write_bytes(program.buffer)
    program.write_tensor_data_to_file(str(folder))
    return model, x, folder / "model.pte", folder / "weights.ptd"


def test_weights_tagged_for_a_data_file_live_there_and_load_with_it(external, tmp_path):
    model, x, pte, ptd = external
    assert named_data(pte.read_bytes()) == {}  # the .pte keeps none of them
    assert weight_bytes(model) <= ptd.stat().st_size <= 1.05 * weight_bytes(model)
    expected = model(x)

    program = Runtime.get().load_program(pte, data_path=ptd)
    (got,) = program.load_method("forward").execute([x])
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)
    (got,) = load_program(pte, data_path=ptd).load_method("forward").execute((x,))
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)

    np.save(tmp_path / "x.npy", x.numpy())
    runner = [str(cpp_runner()), str(pte), "--input", str(tmp_path / "x.npy")]
    process = subprocess.run(
        [*runner, "--data", str(ptd), "--output-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0, process.stderr[-2000:]
    assert np.load(tmp_path / "output_0.npy").tobytes() == got.numpy().tobytes()
    without = subprocess.run(runner, capture_output=True, text=True, timeout=300)
    assert without.returncode == 1 and "data file (.ptd)" in without.stderr


def test_a_program_loaded_without_its_data_file_names_what_is_missing(external):
    _, _, pte, _ = external
    with pytest.raises(ExecutionError, match=r"weights are the named data 'OvExecutorchBackend\."):
        load_program(pte).load_method("forward")
    with pytest.raises(RuntimeError, match="0x:20"):  # ExecuTorch's NotFound; the reason is logged
        Runtime.get().load_program(pte).load_method("forward")
    report = inspect_program(pte)  # the IR's structure is read without the data file
    assert "in a data file" in report.delegates[0].weights


def test_a_damaged_data_file_is_refused_before_openvino_reads_it(external, tmp_path):
    _, _, pte, ptd = external
    data = bytearray(ptd.read_bytes())
    data[-100] ^= 0x40  # inside the weights, which end the file
    damaged = tmp_path / "damaged.ptd"
    damaged.write_bytes(bytes(data))
    with pytest.raises(ExecutionError, match="does not match the checksum"):
        load_program(pte, data_path=damaged).load_method("forward")
    with pytest.raises(RuntimeError, match="0x:30"):  # DelegateInvalidCompatibility
        Runtime.get().load_program(pte, data_path=damaged).load_method("forward")


def test_the_facade_lowers_a_tagged_program_and_saves_its_data_file_beside_it(tmp_path):
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.Tanh()).eval()
    x = torch.randn(2, 16)
    tagged = torch.export.export(model, (x,)).module()
    delegate_external_constants_pass_unlifted(module=tagged, gen_tag_fn=lambda node: "facade")
    lowered = lower(torch.export.export(tagged, (x,), strict=True))
    lowered.save(tmp_path / "model.pte")
    assert (tmp_path / "facade.ptd").stat().st_size >= weight_bytes(model)
    program = load_program(tmp_path / "model.pte", data_path=tmp_path / "facade.ptd")
    (got,) = program.load_method("forward").execute((x,))
    torch.testing.assert_close(got, model(x), rtol=1e-5, atol=1e-6)


def test_constants_tagged_for_two_data_files_are_refused_by_name():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 2)).eval()
    with pytest.raises(ConversionError, match=r"data files \['a', 'b'\]"):
        external_program(
            model, torch.randn(2, 4), tag=lambda node: "a" if "0" in node.name else "b"
        )


def test_a_program_of_the_previous_payload_version_still_loads_and_runs():
    """``legacy_v3.pte``: Linear(4, 3) lowered by the release before named weights (payload 3)."""
    pte = (FIXTURES / "legacy_v3.pte").read_bytes()
    start = pte.index(b"OVEXIR\0\0")
    assert struct.unpack_from("<I", pte, start + 8)[0] == 3
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3).eval()
    x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
    (got,) = load_program(pte).load_method("forward").execute((x,))
    torch.testing.assert_close(got, model(x), rtol=1e-6, atol=1e-6)
    (got,) = Runtime.get().load_program(pte).load_method("forward").execute([x])
    torch.testing.assert_close(got, model(x), rtol=1e-6, atol=1e-6)
    assert inspect_program(pte).delegates[0].weights == "64 bytes in the payload"


def ir(model: ov.Model, folder: Path) -> tuple[bytes, Path]:
    folder.mkdir()
    ov.save_model(model, folder / "model.xml", compress_to_fp16=False)
    return (folder / "model.xml").read_bytes(), folder / "model.bin"


def test_the_pool_holds_each_distinct_constant_once_and_each_ir_reads_its_own(tmp_path):
    shared = np.arange(64, dtype=np.float32).reshape(8, 8)
    irs = []
    for index, other in enumerate((2.0, 3.0)):
        x = ov.opset13.parameter([1, 8], ov.Type.f32)
        product = ov.opset13.matmul(x, ov.opset13.constant(shared), False, True)
        total = ov.opset13.add(product, ov.opset13.constant(np.full((1, 8), other, np.float32)))
        irs.append(ir(ov.Model([total], [x]), tmp_path / str(index)))
    with (tmp_path / "pool.bin").open("wb") as file:
        xmls, named = pool_weights(irs, file)
    pool = (tmp_path / "pool.bin").read_bytes()
    assert named is not None and named.size == len(pool)
    # The 256-byte matrix once and each 32-byte row, no more than alignment between them.
    assert 256 + 2 * 32 <= len(pool) < 256 + 2 * 32 + 64
    core, x = ov.Core(), np.ones((1, 8), np.float32)
    for xml, other in zip(xmls, (2.0, 3.0), strict=True):
        model = core.read_model(model=xml, weights=ov.Tensor(np.frombuffer(pool, np.uint8).copy()))
        got = core.compile_model(model, "CPU")(x)[0]
        np.testing.assert_array_equal(got, x @ shared.T + other)


def test_a_const_outside_its_weights_is_refused(tmp_path):
    x = ov.opset13.parameter([2], ov.Type.f32)
    xml, weights = ir(
        ov.Model([ov.opset13.add(x, ov.opset13.constant(np.array([1.0, 2.0], np.float32)))], [x]),
        tmp_path / "m",
    )
    weights.write_bytes(weights.read_bytes()[:-1])
    with pytest.raises(ConversionError, match=r"names bytes \[0, \+8\) of weights of 7 bytes"):
        pool_weights([(xml, weights)], io.BytesIO())
