"""Payloads that are not ours, a missing OpenVINO, and bad arguments: errors with a logged reason."""

import os
import struct
import subprocess
import sys

import pytest
import torch

from ov_convert import MAGIC
from ov_runtime import lower

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


def patched(pte: bytes, offset: int, value: bytes) -> bytes:
    start = pte.index(MAGIC)
    assert pte.count(MAGIC) == 1
    data = bytearray(pte)
    data[start + offset : start + offset + len(value)] = value
    return bytes(data)


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
        (8, struct.pack("<I", 99), "payload version is 99; this runtime reads version 1"),
        (24, struct.pack("<Q", 1 << 40), "model XML"),
        (40, struct.pack("<Q", 1 << 40), "payload weights"),
        (16, struct.pack("<Q", (1 << 64) - 8), "model XML"),
    ],
    ids=["magic", "version", "xml_past_end", "weights_past_end", "offset_overflow"],
)
def test_payload_that_is_not_ours_fails_init_with_a_logged_reason(
    pte, tmp_path, offset, value, reason
):
    path = tmp_path / "bad.pte"
    path.write_bytes(patched(pte, offset, value))
    result = run_in_subprocess(path)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "cannot read the delegate payload" in result.stderr
    assert reason in result.stderr


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
