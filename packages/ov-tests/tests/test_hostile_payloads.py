"""Crafted payloads through ExecuTorch's own runtime and the facade: refused with a reason, never a crash."""

import struct
import subprocess
import sys
import time

import pytest
import torch

from ov_convert.payload import reseal
from ov_runtime import ExecutionError, load_program
from ov_runtime.native import LIBRARY_NAME
from ov_runtime.native.library import installed
from ov_tests.payload_fuzz import programs, relaid
from ov_tests.payload_fuzz.mutations import sections_of
from ov_tests.payload_fuzz.run import _payload_of, with_payload

THROUGH_EXECUTORCH = """
import sys
import ov_runtime  # registers the backend
import torch
from executorch.runtime import Runtime

program = Runtime.get().load_program(sys.argv[1])
try:
    method = program.load_method("forward")
    for call in range(2):
        method.execute([torch.randn(int(sys.argv[2]), 8)])
except RuntimeError as error:
    print("refused:", error)
    sys.exit(0)
print("ran")
"""


@pytest.fixture(scope="module")
def lowered() -> dict[str, tuple[object, bytes]]:
    """Each fuzzed program's ExecuTorch reading and its delegate's payload."""
    return {name: _payload_of(program.lower()) for name, program in programs().items()}


def crafted(lowered, name: str, checksum: bool = True, **sections: bytes) -> bytes:
    """The program ``name`` with ``sections`` of its payload replaced (checksum made to match)."""
    pte_file, payload = lowered[name]
    data = bytearray(relaid(payload, sections))
    if checksum:
        reseal(data, end=len(data))
    return with_payload(pte_file, bytes(data))


def through_executorch(pte: bytes, tmp_path, batch: int = 3) -> subprocess.CompletedProcess:
    path = tmp_path / "crafted.pte"
    path.write_bytes(pte)
    return subprocess.run(
        [sys.executable, "-c", THROUGH_EXECUTORCH, str(path), str(batch)],
        capture_output=True,
        timeout=120,
        check=False,
    )


def blob_strings(lowered, version=None, name=None) -> bytes:
    old_version, old_name, data = sections_of(lowered["blob"][1])["blob"].split(b"\0", 2)
    return (version or old_version) + b"\0" + (name or old_name) + b"\0" + data


@pytest.mark.parametrize(
    "change",
    [
        lambda lowered: {"blob": blob_strings(lowered, version=b"\xff\xfe2026.4.1")},
        lambda lowered: {
            "blob": blob_strings(
                lowered, name=sections_of(lowered["blob"][1])["blob"].split(b"\0")[1] + b"\xff"
            )
        },
        lambda lowered: {
            "options": b"CPU\xff\0" + sections_of(lowered["blob"][1])["options"].split(b"\0", 1)[1]
        },
    ],
    ids=["blob_version", "blob_device_name", "options_device"],
)
def test_log_lines_of_bytes_that_are_not_utf8_are_escaped_through_executorch_runtime(
    lowered, tmp_path, change
):
    # ExecuTorch's Python bindings end the process on a log line that is not UTF-8.
    result = through_executorch(crafted(lowered, "blob", **change(lowered)), tmp_path)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    assert b"\\xff" in result.stderr
    result.stderr.decode("utf-8")  # every line is UTF-8


def test_a_refusal_through_executorch_runtime_logs_its_reason_on_stderr(lowered, tmp_path):
    signature = sections_of(lowered["pass_through"][1])["signature"]
    assert signature == b"T/TCTC"  # x + 1, x, y, y.transpose(1, 1)
    result = through_executorch(crafted(lowered, "pass_through", signature=b"T/TTTC"), tmp_path)
    assert result.returncode == 0 and b"refused:" in result.stdout
    assert b"payload signature marks output 1 'T'" in result.stderr


@pytest.mark.parametrize(
    ("signature", "output", "source"),
    [
        (b"T/TTTC", 1, "passes a Parameter through"),
        (b"T/TCTT", 3, "reads the same value as an earlier output"),
        (b"T/TTTT", 1, "passes a Parameter through"),
    ],
)
def test_a_signature_that_lies_about_a_passed_through_output_is_refused(
    lowered, signature, output, source
):
    pte = crafted(lowered, "pass_through", signature=signature)
    with pytest.raises(ExecutionError, match=rf"marks output {output} 'T'.*{source}"):
        load_program(pte).load_method("forward")


def test_a_signature_with_another_count_than_the_ir_is_refused(lowered):
    pte = crafted(lowered, "static", signature=b"TT/TT")
    with pytest.raises(ExecutionError, match="lists 2 inputs and 2 outputs, but its IR has 1"):
        load_program(pte).load_method("forward")


def test_copying_an_output_the_model_computes_is_allowed(lowered):
    pte = crafted(lowered, "pass_through", signature=b"T/CCCC")
    x = torch.randn(3, 8)
    outputs = load_program(pte).load_method("forward").execute((x,))
    expected = (x, x + 1, x * 2, x * 2)  # the method's outputs, in its order
    assert all(torch.equal(got, want) for got, want in zip(outputs, expected, strict=True))


@pytest.mark.parametrize("device", [b"AUTO:CPU,CPU", b"MULTI:CPU,CPU"])
def test_a_device_list_that_names_a_device_twice_is_refused_at_load(lowered, device, tmp_path):
    options = device + b"\0" + sections_of(lowered["dynamic"][1])["options"].split(b"\0", 1)[1]
    pte = crafted(lowered, "dynamic", options=options)
    with pytest.raises(ExecutionError, match="names the device 'CPU' twice"):
        load_program(pte).load_method("forward")
    # OpenVINO returned the first call's shape for the second (batch 7) on such a device.
    result = through_executorch(pte, tmp_path, batch=7)
    assert b"refused:" in result.stdout and b"names the device 'CPU' twice" in result.stderr


def test_one_device_in_a_virtual_device_keeps_dynamic_shapes_right(lowered):
    options = b"AUTO:CPU\0" + sections_of(lowered["dynamic"][1])["options"].split(b"\0", 1)[1]
    method = load_program(crafted(lowered, "dynamic", options=options)).load_method("forward")
    expected = load_program(with_payload(*lowered["dynamic"])).load_method("forward")
    for batch in (1, 7, 3, 7):
        x = torch.randn(batch, 8)
        assert torch.equal(method.execute((x,))[0], expected.execute((x,))[0])


@pytest.mark.parametrize("bits", [2, 1 << 40])
def test_unknown_flag_bits_are_refused_with_their_value(lowered, bits):
    pte_file, payload = lowered["static"]
    data = bytearray(payload)
    struct.pack_into("<Q", data, 88, bits)
    reseal(data, end=len(data))
    with pytest.raises(ExecutionError, match=rf"flags set the bits {bits:#x}"):
        load_program(with_payload(pte_file, bytes(data))).load_method("forward")


def nested_rt_info(lowered, depth: int) -> bytes:
    xml = sections_of(lowered["static"][1])["xml"]
    at = xml.rindex(b"</rt_info>")
    return xml[:at] + b"<n>" * depth + b"</n>" * depth + xml[at:]


MEASURE_REFUSAL = """
import ctypes, resource, sys, time
library = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
payload = open(sys.argv[2], "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
status = library.ov_executorch_check_payload(payload, len(payload))
seconds = time.perf_counter() - start
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(status, seconds, grown / 1024)
"""


@pytest.mark.parametrize("checksum", [True, False], ids=["crafted", "damaged"])
def test_deeply_nested_xml_is_refused_in_under_a_second_and_100_mib(lowered, tmp_path, checksum):
    payload = bytearray(relaid(lowered["static"][1], {"xml": nested_rt_info(lowered, 120_000)}))
    if checksum:
        reseal(payload, end=len(payload))
    path = tmp_path / "payload.bin"
    path.write_bytes(payload)
    library = str(installed(LIBRARY_NAME))
    result = subprocess.run(
        [sys.executable, "-c", MEASURE_REFUSAL, library, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    status, seconds, mebibytes = result.stdout.split()
    assert int(status) != 0 and float(seconds) < 1 and float(mebibytes) < 100, result.stdout
    reason = "nests elements more than 128 deep" if checksum else "checksum does not match"
    assert reason in result.stderr


@pytest.mark.parametrize(
    ("checksum", "reason"),
    [(True, b"nests elements more than 128 deep"), (False, b"checksum does not match")],
    ids=["crafted", "damaged"],
)
def test_deeply_nested_xml_is_refused_through_executorch_runtime(
    lowered, tmp_path, checksum, reason
):
    # A damaged copy is refused by its checksum before OpenVINO reads a byte of it.
    pte = crafted(lowered, "static", checksum=checksum, xml=nested_rt_info(lowered, 120_000))
    start = time.perf_counter()
    result = through_executorch(pte, tmp_path)
    assert time.perf_counter() - start < 60  # OpenVINO took 27-57 s and 24 GB before it failed
    assert b"refused:" in result.stdout
    assert reason in result.stderr


def test_a_flag_changed_by_damage_fails_the_checksum(lowered):
    pte_file, payload = lowered["static"]
    data = bytearray(payload)
    data[88] ^= 1  # WIDE_INT8_WEIGHTS, outside the checksum in payload version 2
    with pytest.raises(ExecutionError, match="checksum does not match its bytes"):
        load_program(with_payload(pte_file, bytes(data))).load_method("forward")


def test_nesting_within_the_bound_still_loads_and_computes(lowered):
    pte = crafted(lowered, "static", xml=nested_rt_info(lowered, 100))
    x = torch.randn(3, 8)
    expected = load_program(with_payload(*lowered["static"])).load_method("forward").execute((x,))
    outputs = load_program(pte).load_method("forward").execute((x,))
    assert all(torch.equal(got, want) for got, want in zip(outputs, expected, strict=True))


@pytest.mark.parametrize(
    ("xml", "reason"),
    [
        (b'<?xml version="1.0"?><!DOCTYPE net [<!ENTITY a "aa">]><net/>', "holds a declaration"),
        (b"<net><layers></edges></net>", "closes </edges> where <layers> is open"),
        (b"<net/><net/>", "has a second root element"),
        (b"<model/>", "root is <model>, not <net>"),
        (b"<net><layers><layer id='x1'/></layers></net>", 'id="x1", not a decimal number'),
    ],
    ids=["doctype", "mismatched", "two_roots", "not_net", "bad_id"],
)
def test_xml_the_converter_never_writes_is_refused_with_what_it_holds(lowered, xml, reason):
    pte = crafted(lowered, "static", xml=xml + b" " * 300)
    with pytest.raises(ExecutionError, match=reason):
        load_program(pte).load_method("forward")


def test_inspecting_a_hostile_program_reports_why_without_reading_it(lowered):
    from ov_runtime import inspect_program

    report = inspect_program(crafted(lowered, "static", xml=nested_rt_info(lowered, 120_000)))
    (delegate,) = report.delegates
    assert "nests elements more than 128 deep" in delegate.problem
