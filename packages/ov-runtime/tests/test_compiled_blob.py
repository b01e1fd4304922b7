"""The compiled blob a payload may carry: imported where it applies, the IR compiled elsewhere."""

import struct

import pytest
import torch

from ov_convert import MAGIC
from ov_convert.payload import reseal
from ov_runtime import ExecutionError, compile_specs, compiled_delegates, load_program, lower

BLOB_FIELDS = 96  # blob_offset, blob_size in a header of 112 bytes
SPECS = {"cache_dir": "none", "inference_num_threads": "1"}


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(64, 32)

    def forward(self, x):
        return torch.relu(self.linear(x))


INPUT = torch.randn(4, 64, generator=torch.Generator().manual_seed(1))


@pytest.fixture(scope="module")
def programs() -> dict[str, bytes]:
    def lowered(**specs: str) -> bytes:
        return lower(Block().eval(), (INPUT,), compile_specs(**{**SPECS, **specs})).buffer

    return {
        "blob": lowered(compiled_blob="true"),
        "ir": lowered(),
        "blob_two_threads": lowered(compiled_blob="true", inference_num_threads="2"),
    }


def load_and_run(pte: bytes) -> tuple[torch.Tensor, dict[str, str]]:
    """Run ``pte`` once; return its output and what its delegate was loaded from and with."""
    method = load_program(pte).load_method("forward")
    output = method.execute((INPUT,))[0]
    return output, compiled_delegates()[-1]


def blob_section(pte: bytes) -> tuple[int, int, int]:
    """The payload's start in ``pte``, and its blob section's offset and size."""
    start = pte.index(MAGIC)
    assert struct.unpack_from("<I", pte, start + 12)[0] == 112
    offset, size = struct.unpack_from("<QQ", pte, start + BLOB_FIELDS)
    return start, offset, size


def patched_blob(pte: bytes, at: int, value: bytes, *, checksum: bool = True) -> bytes:
    """``pte`` with ``value`` written ``at`` bytes into its blob section, the checksum made to match."""
    start, offset, _ = blob_section(pte)
    data = bytearray(pte)
    data[start + offset + at : start + offset + at + len(value)] = value
    if checksum:
        reseal(data, start)
    return bytes(data)


def test_a_compiled_blob_is_imported_with_the_programs_properties(programs):
    from_blob, record = load_and_run(programs["blob"])
    assert record["loaded_from"] == "blob"
    # Run-time properties an import does not restore from the blob are applied too.
    assert record["INFERENCE_NUM_THREADS"] == "1"
    assert record["DYNAMIC_QUANTIZATION_GROUP_SIZE"] == "0"
    assert record["INFERENCE_PRECISION_HINT"] == "f32"
    from_ir, record = load_and_run(programs["ir"])
    assert record["loaded_from"] == "ir"
    assert torch.equal(from_blob, from_ir)
    torch.testing.assert_close(from_blob, Block().eval()(INPUT), rtol=0, atol=1e-6)


def test_programs_with_other_run_time_properties_import_with_their_own(programs):
    records = [load_and_run(programs[name])[1] for name in ("blob_two_threads", "blob", "blob")]
    assert [record["loaded_from"] for record in records] == ["blob"] * 3
    assert [record["INFERENCE_NUM_THREADS"] for record in records] == ["2", "1", "1"]


def test_the_blob_is_stored_beside_the_ir_and_reported(programs):
    import openvino as ov

    from ov_runtime import inspect_program

    _, offset, size = blob_section(programs["blob"])
    assert offset % 64 == 0 and size > 0
    assert len(programs["blob"]) > len(programs["ir"]) + size - 64
    name = ov.Core().get_property("CPU", "FULL_DEVICE_NAME")
    data_size = size - len(ov.get_version().encode()) - len(name.encode()) - 2
    report = inspect_program(programs["blob"]).format()
    assert f"compiled blob: {data_size} bytes for {name} by OpenVINO {ov.get_version()}" in report
    assert "compiled blob" not in inspect_program(programs["ir"]).format()


@pytest.mark.parametrize("field", ["openvino_version", "device_name"])
def test_a_blob_made_elsewhere_is_left_and_the_ir_compiled(programs, capfd, field):
    _, offset, _ = blob_section(programs["blob"])
    section_start = programs["blob"].index(MAGIC) + offset
    version_end = programs["blob"].index(b"\0", section_start) - section_start
    at = 0 if field == "openvino_version" else version_end + 1
    output, record = load_and_run(patched_blob(programs["blob"], at, b"X"))
    assert record["loaded_from"] == "ir"
    assert torch.equal(output, load_and_run(programs["ir"])[0])
    expected = "made by OpenVINO X" if field == "openvino_version" else "compiled for the CPU"
    assert expected in capfd.readouterr().err


def test_a_corrupt_blob_is_refused_before_openvino_reads_it(programs, capfd):
    _, _, size = blob_section(programs["blob"])
    data = patched_blob(programs["blob"], size // 2, b"\xff\x00\xff", checksum=False)
    with pytest.raises(ExecutionError, match="checksum does not match its bytes"):
        load_and_run(data)
    assert "checksum does not match" in capfd.readouterr().err


def test_a_blob_section_without_its_two_names_is_refused(programs, capfd):
    _, _, size = blob_section(programs["blob"])
    data = patched_blob(programs["blob"], 0, b"x" * size)
    with pytest.raises(ExecutionError, match="blob section does not start with the OpenVINO"):
        load_and_run(data)
    assert "blob section does not start" in capfd.readouterr().err
