"""Payloads that are not ours, a missing OpenVINO, and bad arguments: errors with a logged reason."""

import os
import struct
import subprocess
import sys

import pytest
import torch

from ov_convert import MAGIC
from ov_convert.payload import reseal
from ov_runtime import ExecutionError, lower, run

RUN_SCRIPT = """
import sys, torch
from ov_runtime import ExecutionError, run
try:
    outputs = run(sys.argv[1], [torch.ones(2, 3)])
except ExecutionError as error:
    print("execution error:", error)
    sys.exit(3)
print("ran", outputs)
"""


class AddOne(torch.nn.Module):
    def forward(self, x):
        return x + 1


@pytest.fixture(scope="module")
def pte() -> bytes:
    return lower(AddOne(), (torch.ones(2, 3),)).buffer


def run_in_subprocess(path, env=None):
    return subprocess.run(
        [sys.executable, "-c", RUN_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
        check=False,
    )


def with_checksum(pte: bytes) -> bytes:
    """The program with its payload's checksum recomputed, so that only what a change breaks is refused."""
    data = bytearray(pte)
    reseal(data, pte.index(MAGIC))
    return bytes(data)


def patched(pte: bytes, offset: int, value: bytes, *, checksum: bool = False) -> bytes:
    """The program with ``value`` written at ``offset`` of its payload (and its checksum made to match)."""
    start = pte.index(MAGIC)
    assert pte.count(MAGIC) == 1
    data = bytearray(pte)
    data[start + offset : start + offset + len(value)] = value
    return with_checksum(bytes(data)) if checksum else bytes(data)


def run_refused(data: bytes, capfd) -> tuple[str, str]:
    """Run a program whose delegate must refuse to load; return the error and the log."""
    with pytest.raises(ExecutionError) as refused:
        run(data, [torch.ones(2, 3)])
    return str(refused.value), capfd.readouterr().err


def test_the_untouched_program_runs(pte, tmp_path):
    path = tmp_path / "good.pte"
    path.write_bytes(pte)
    result = run_in_subprocess(path)
    assert result.returncode == 0, result.stderr
    assert "ran" in result.stdout


@pytest.mark.parametrize(
    ("offset", "value", "reason"),
    [
        (0, b"NOTOURS\0", "does not start with this backend's magic"),
        (8, struct.pack("<I", 99), "payload version is 99; this runtime reads versions 3 to 4"),
        (
            8,
            struct.pack("<I", 2),
            "version is 2; this runtime reads versions 3 to 4; lower the program again",
        ),
        (12, struct.pack("<I", 40), "header_size is 40"),
        (12, struct.pack("<I", 104), "header_size is 104; version 4 has 96, or 112"),
        (12, struct.pack("<I", 112), "payload options section [96, +"),
        (24, struct.pack("<Q", 1 << 40), "payload options section [96, +1099511627776)"),
        (40, struct.pack("<Q", 1 << 40), "payload signature section"),
        (56, struct.pack("<Q", 1 << 40), "payload xml section"),
        (72, struct.pack("<Q", 1 << 40), "payload weights section"),
        (72, struct.pack("<Q", 0), "payload weights section ends at"),
        (48, struct.pack("<Q", (1 << 64) - 8), "payload xml section [18446744073709551608"),
        (80, struct.pack("<Q", 12345), "checksum does not match its bytes"),
    ],
    ids=[
        "magic",
        "version",
        "version_2",
        "header_too_small",
        "header_grown",
        "header_of_a_blob",
        "options_past_end",
        "signature_past_end",
        "xml_past_end",
        "weights_past_end",
        "weights_short_of_end",
        "offset_overflow",
        "checksum",
    ],
)
def test_payload_that_is_not_ours_fails_init_with_a_logged_reason(
    pte, capfd, offset, value, reason
):
    error, log = run_refused(patched(pte, offset, value), capfd)
    assert "OpenVINO delegate: cannot read the delegate payload" in error
    assert reason in error and reason in log


@pytest.mark.parametrize(("section", "field"), [("xml", 48), ("weights", 64)])
def test_a_flipped_bit_is_refused_by_the_checksum(pte, capfd, section, field):
    start = pte.index(MAGIC)
    offset, size = struct.unpack_from("<QQ", pte, start + field)
    assert size > 0
    data = bytearray(pte)
    data[start + offset + size // 2] ^= 0x04
    error, log = run_refused(bytes(data), capfd)
    assert "checksum does not match its bytes: the payload is corrupt" in error
    assert "checksum does not match" in log


def test_options_that_do_not_parse_are_refused(pte, capfd):
    # The options' last NUL overwritten, the checksum made to match.
    error, log = run_refused(patched(pte, signature_offset(pte) - 1, b"x", checksum=True), capfd)
    assert "payload options are not a device and key/value pairs" in error
    assert "payload options are not" in log


def signature_offset(pte: bytes) -> int:
    start = pte.index(MAGIC)
    offset: int = struct.unpack_from("<Q", pte, start + 32)[0]
    return offset


@pytest.mark.parametrize(
    ("letters", "reason"),
    [
        (b"X/T", "payload signature is not letters T, S, P and F"),
        (b"C/T", "payload signature is not letters T, S, P and F"),
        (b"T/P", "payload signature is not letters T, S, P and F"),
        (b"T/F", "payload signature is not letters T, S, P and F"),
        (b"S/T", "delegate input 0 is an EValue with tag"),
        (b"F/T", "delegate input 0 is an EValue with tag"),
        (b"T/S", "delegate output 0 is an EValue with tag"),
    ],
    ids=[
        "unknown_letter",
        "copied_input",
        "positions_output",
        "first_position_output",
        "scalar_input",
        "first_position_input_given_a_tensor",
        "scalar_output",
    ],
)
def test_signature_that_disagrees_with_the_program_is_refused(pte, capfd, letters, reason):
    error, log = run_refused(patched(pte, signature_offset(pte), letters, checksum=True), capfd)
    assert reason in error and reason in log


def test_missing_openvino_makes_the_backend_unavailable_with_a_reason(pte, tmp_path):
    from ov_runtime.native import OPENVINO_LIBRARY_VARIABLE

    missing = tmp_path / "no" / "libopenvino_c.so"
    script = "import logging; logging.basicConfig(); from ov_runtime import is_available; print('available', is_available())"
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, OPENVINO_LIBRARY_VARIABLE: str(missing)},
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "available False" in result.stdout
    assert "could not be loaded" in result.stderr and str(missing) in result.stderr

    path = tmp_path / "model.pte"
    path.write_bytes(pte)
    ran = run_in_subprocess(path, {OPENVINO_LIBRARY_VARIABLE: str(missing)})
    assert ran.returncode == 3
    assert "OpenVINO: the backend is not available" in ran.stderr
    assert "could not be loaded" in ran.stdout  # the reason reaches the Python error


def test_backend_is_available_here():
    from ov_runtime import is_available

    assert is_available()


@pytest.mark.parametrize(
    ("original", "replacement", "shown"),
    [
        (b'type="Add"', b'type="A\xead"', "A\\xead"),
        (b'type="Add"', b'type="\xc3\x28d"', "\\xc3(d"),  # a cut two-byte sequence
        (b'type="Add"', b'type="\xed\xa0\x80"', "\\xed\\xa0\\x80"),  # a surrogate
    ],
    ids=["lone_byte", "cut_sequence", "surrogate"],
)
def test_bytes_that_are_not_utf8_in_the_ir_give_a_clean_error(
    pte, tmp_path, original, replacement, shown
):
    # OpenVINO quotes the bad text; ExecuTorch's Python bindings abort on a log
    # line that is not UTF-8, so the backend escapes it.
    assert pte.count(original) == 1 and len(original) == len(replacement)
    path = tmp_path / "bad.pte"
    path.write_bytes(with_checksum(pte.replace(original, replacement)))
    result = run_in_subprocess(path)
    assert result.returncode == 3, f"signal or crash: {result.returncode}\n{result.stderr}"
    assert shown in result.stdout and shown in result.stderr


def test_long_messages_are_cut_to_a_bounded_length(pte, capfd):
    from ov_runtime import compile_specs

    device = "GPU" + "X" * 10_000
    lowered = lower(AddOne(), (torch.ones(2, 3),), compile_specs(device=device))
    with pytest.raises(ExecutionError) as refused:
        run(lowered.buffer, [torch.ones(2, 3)])
    message = str(refused.value)
    assert "more bytes)" in message and len(message) < 4096 + 500
    log = capfd.readouterr().err
    assert "OpenVINO (continued):" in log  # ExecuTorch cuts long log lines: several are written
