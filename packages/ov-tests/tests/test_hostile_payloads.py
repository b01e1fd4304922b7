"""Crafted payloads through ExecuTorch's own runtime and the facade: refused with a reason, never a crash."""

import json
import re
import struct
import subprocess
import sys

import pytest
import torch

from ov_convert.payload import reseal
from ov_runtime import ExecutionError, compiled_delegates, load_program
from ov_runtime.native import LIBRARY_NAME
from ov_runtime.native.library import installed
from ov_tests.models import Function
from ov_tests.payload_fuzz import payload_of, programs, relaid, with_payload
from ov_tests.payload_fuzz.mutations import sections_of

# Runs each program of a JSON list through ExecuTorch's own runtime, in one process (one
# import of PyTorch): a line on stdout per program, its log on stderr after a marker.
THROUGH_EXECUTORCH = """
import json, sys, time
import ov_runtime  # registers the backend
import torch
from executorch.runtime import Runtime

for name, path, batch in json.load(open(sys.argv[1])):
    print(f"=== {name}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    program = Runtime.get().load_program(path)  # kept alive: its method does not keep it
    try:
        method = program.load_method("forward")
        for call in range(2):
            method.execute([torch.randn(batch, 8)])
        outcome = "ran"
    except RuntimeError:
        outcome = "refused"
    sys.stderr.flush()
    print(json.dumps([name, outcome, time.perf_counter() - start]), flush=True)
"""


@pytest.fixture(scope="module")
def lowered() -> dict[str, tuple[object, bytes]]:
    """Each fuzzed program's ExecuTorch reading and its delegate's payload."""
    return {name: payload_of(program.lower()) for name, program in programs().items()}


def crafted(lowered, name: str, checksum: bool = True, **sections: bytes) -> bytes:
    """The program ``name`` with ``sections`` of its payload replaced (checksum made to match)."""
    pte_file, payload = lowered[name]
    data = bytearray(relaid(payload, sections))
    if checksum:
        reseal(data, end=len(data))
    return with_payload(pte_file, bytes(data))


def options_with_device(lowered, name: str, device: bytes) -> bytes:
    """Program ``name``'s options section with its device replaced."""
    return device + b"\0" + sections_of(lowered[name][1])["options"].split(b"\0", 1)[1]


def nested_rt_info(lowered, depth: int) -> bytes:
    xml = sections_of(lowered["static"][1])["xml"]
    at = xml.rindex(b"</rt_info>")
    return xml[:at] + b"<n>" * depth + b"</n>" * depth + xml[at:]


@pytest.fixture(scope="module")
def through_executorch(lowered, tmp_path_factory) -> dict[str, tuple[str, float, str]]:
    """Crafted programs run through ``executorch.runtime``: each one's outcome, seconds and log.

    A program the child did not reach (it died on an earlier one) is missing.
    """
    _, device_name, _ = sections_of(lowered["blob"][1])["blob"].split(b"\0", 2)
    nested = nested_rt_info(lowered, 120_000)
    cases = {
        "blob_version": (crafted(lowered, "blob", blob=blob_strings(lowered, b"\xff\xfe2026")), 3),
        "blob_device_name": (
            crafted(lowered, "blob", blob=blob_strings(lowered, name=device_name + b"\xff")),
            3,
        ),
        "options_device": (
            crafted(lowered, "blob", options=options_with_device(lowered, "blob", b"CPU\xff")),
            3,
        ),
        "signature_lie": (crafted(lowered, "pass_through", signature=b"T/TTTC"), 3),
        # OpenVINO returned the first call's shape for the second (batch 7) on such a device.
        **{
            device: (
                crafted(
                    lowered,
                    "dynamic",
                    options=options_with_device(lowered, "dynamic", device.encode()),
                ),
                7,
            )
            for device in ("AUTO:CPU,CPU", "MULTI:CPU,CPU")
        },
        "nested_crafted": (crafted(lowered, "static", xml=nested), 3),
        "nested_damaged": (crafted(lowered, "static", checksum=False, xml=nested), 3),
    }
    folder = tmp_path_factory.mktemp("crafted")
    listing: list[list[object]] = []
    for name, (pte, batch) in cases.items():
        (folder / f"{len(listing)}.pte").write_bytes(pte)
        listing.append([name, str(folder / f"{len(listing)}.pte"), batch])
    (folder / "cases.json").write_text(json.dumps(listing))
    result = subprocess.run(
        [sys.executable, "-c", THROUGH_EXECUTORCH, str(folder / "cases.json")],
        capture_output=True,
        timeout=600,
        check=False,
    )
    logs = {}
    for part in result.stderr.split(b"=== ")[1:]:
        case, _, log = part.partition(b"\n")
        logs[case] = log
    runs: dict[str, tuple[str, float, str]] = {}
    for line in result.stdout.decode().splitlines():
        name, outcome, seconds = json.loads(line)
        runs[name] = (outcome, seconds, logs[name.encode()].decode("utf-8"))
    assert result.returncode == 0 or len(runs) < len(cases), (
        "a child that failed reached every case"
    )
    return runs


def run_of(through_executorch, name: str) -> tuple[str, float, str]:
    assert name in through_executorch, (
        f"the child process through executorch.runtime died before {name}"
    )
    run: tuple[str, float, str] = through_executorch[name]
    return run


def blob_strings(lowered, version=None, name=None) -> bytes:
    old_version, old_name, data = sections_of(lowered["blob"][1])["blob"].split(b"\0", 2)
    return (version or old_version) + b"\0" + (name or old_name) + b"\0" + data


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("blob_version", "ran"),  # the IR is compiled in place of the blob
        ("blob_device_name", "ran"),
        ("options_device", "refused"),
    ],
)
def test_log_lines_of_bytes_that_are_not_utf8_are_escaped_through_executorch_runtime(
    through_executorch, case, expected
):
    # ExecuTorch's Python bindings end the process on a log line that is not UTF-8 (the
    # fixture decodes each log as UTF-8).
    outcome, _, log = run_of(through_executorch, case)
    assert outcome == expected and "\\xff" in log, log


def test_a_refusal_through_executorch_runtime_logs_its_reason_on_stderr(
    lowered, through_executorch
):
    signature = sections_of(lowered["pass_through"][1])["signature"]
    assert signature == b"T/TCTC"  # x + 1, x, y, y.transpose(1, 1)
    outcome, _, log = run_of(through_executorch, "signature_lie")
    assert outcome == "refused" and "payload signature marks output 1 'T'" in log


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


@pytest.mark.parametrize("device", ["AUTO:CPU,CPU", "MULTI:CPU,CPU"])
def test_a_device_list_that_names_a_device_twice_is_refused_at_load(
    lowered, through_executorch, device
):
    pte = crafted(
        lowered, "dynamic", options=options_with_device(lowered, "dynamic", device.encode())
    )
    with pytest.raises(ExecutionError, match="names the device 'CPU' twice"):
        load_program(pte).load_method("forward")
    outcome, _, log = run_of(through_executorch, device)
    assert outcome == "refused" and "names the device 'CPU' twice" in log


def test_one_device_in_a_virtual_device_keeps_dynamic_shapes_right(lowered):
    options = options_with_device(lowered, "dynamic", b"AUTO:CPU")
    method = load_program(crafted(lowered, "dynamic", options=options)).load_method("forward")
    expected = load_program(with_payload(*lowered["dynamic"])).load_method("forward")
    for batch in (1, 7, 3, 7):
        x = torch.randn(batch, 8)
        assert torch.equal(method.execute((x,))[0], expected.execute((x,))[0])


@pytest.mark.parametrize("bits", [4, 1 << 40])
def test_unknown_flag_bits_are_refused_with_their_value(lowered, bits):
    pte_file, payload = lowered["static"]
    data = bytearray(payload)
    struct.pack_into("<Q", data, 88, bits)
    reseal(data, end=len(data))
    with pytest.raises(ExecutionError, match=rf"flags set the bits {bits:#x}"):
        load_program(with_payload(pte_file, bytes(data))).load_method("forward")


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
    ("case", "reason"),
    [
        ("nested_crafted", "nests elements more than 128 deep"),
        # A damaged copy is refused by its checksum before OpenVINO reads a byte of it.
        ("nested_damaged", "checksum does not match"),
    ],
)
def test_deeply_nested_xml_is_refused_through_executorch_runtime(through_executorch, case, reason):
    outcome, seconds, log = run_of(through_executorch, case)
    assert outcome == "refused" and reason in log
    assert seconds < 10  # OpenVINO took 27-57 s and 24 GB before it failed


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


def test_an_entity_in_a_layer_type_is_refused(lowered):
    # pugixml decodes "&#80;arameter" to Parameter; read raw, the Parameter would pass unseen.
    xml = sections_of(lowered["pass_through"][1])["xml"]
    xml = xml.replace(b'type="Parameter"', b'type="&#80;arameter"', 1)
    pte = crafted(lowered, "pass_through", xml=xml, signature=b"T/TTTC")
    with pytest.raises(ExecutionError, match='has type="&#80;arameter", not an operation\'s name'):
        load_program(pte).load_method("forward")


def test_a_comment_is_read_to_its_end_as_xml_reads_it(lowered):
    # "<!-->" opens a comment that runs to the next "-->": the layer inside is not the model's.
    xml = sections_of(lowered["static"][1])["xml"]
    hidden = b'<!--><layer id="99" name="hidden" type="Parameter" version="opset1"/>-->'
    xml = xml.replace(b"</layers>", hidden + b"</layers>", 1)
    x = torch.randn(3, 8)
    expected = load_program(with_payload(*lowered["static"])).load_method("forward").execute((x,))
    outputs = load_program(crafted(lowered, "static", xml=xml)).load_method("forward").execute((x,))
    assert all(torch.equal(got, want) for got, want in zip(outputs, expected, strict=True))


def test_a_blob_runs_right_whatever_the_ir_beside_it_says(lowered):
    """The signature is checked against the IR, which an imported blob need not match: a blob's
    outputs are copied, never bound, so a lie told through a decoy IR changes nothing."""
    from ov_tests.payload_fuzz.programs import _lowered, _pass_through, _rows

    pte_file, payload = payload_of(
        _lowered(Function(_pass_through), _rows(3, 0), compiled_blob="true")()
    )
    xml = sections_of(payload)["xml"]
    results = re.findall(rb'<layer id="(\d+)" name="[^"]*" type="Result"', xml)
    stubs = b"".join(
        b'<layer id="%d" name="stub%d" type="Relu" version="opset1"/>' % (900 + i, i)
        for i in range(len(results))
    )
    xml = xml.replace(b"</layers>", stubs + b"</layers>", 1)
    for i, result in enumerate(results):  # every Result now reads a layer of its own
        xml = re.sub(
            rb'<edge from-layer="\d+" from-port="\d+" to-layer="' + result + rb'"',
            b'<edge from-layer="%d" from-port="0" to-layer="%s"' % (900 + i, result),
            xml,
        )
    data = bytearray(relaid(payload, {"xml": xml, "signature": b"T/TTTT"}))
    reseal(data, end=len(data))
    x = torch.randn(3, 8)
    method = load_program(with_payload(pte_file, bytes(data))).load_method("forward")
    assert compiled_delegates()[-1]["loaded_from"] == "blob"
    outputs = method.execute((x,))
    assert all(torch.equal(got, want) for got, want in zip(outputs, _pass_through(x), strict=True))


def test_a_layer_with_more_inputs_than_the_cpu_plugin_compiles_in_time_is_refused(lowered):
    # OpenVINO's CPU plugin took over 120 s to compile a Concat of 20,000 inputs.
    count = 4097
    ports = b"".join(b'<port id="%d" precision="FP32"/>' % i for i in range(count))
    edges = b"".join(
        b'<edge from-layer="0" from-port="0" to-layer="1" to-port="%d"/>' % i for i in range(count)
    )
    xml = (
        b'<?xml version="1.0"?><net name="wide" version="11"><layers>'
        b'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="?,8" '
        b'element_type="f32"/><output><port id="0" precision="FP32"/></output></layer>'
        b'<layer id="1" name="wide" type="Concat" version="opset1"><data axis="0"/><input>'
        + ports
        + b'</input><output><port id="%d" precision="FP32"/></output></layer>' % count
        + b'<layer id="2" name="out" type="Result" version="opset1"><input><port id="0" '
        b'precision="FP32"/></input></layer></layers><edges>'
        + edges
        + b'<edge from-layer="1" from-port="%d" to-layer="2" to-port="0"/></edges></net>' % count
    )
    pte = crafted(lowered, "dynamic", xml=xml, signature=b"T/T")
    with pytest.raises(ExecutionError, match=r"a layer \(id 1\) with more than 4096 inputs"):
        load_program(pte).load_method("forward")


def test_a_layer_output_read_by_more_layers_than_the_cpu_plugin_compiles_in_time_is_refused(
    lowered,
):
    # Four Concats of 4,096 inputs, all reading one Parameter, took over 60 s to compile.
    count = 4097
    relus = b"".join(
        b'<layer id="%d" name="r%d" type="Relu" version="opset1"><input><port id="0" '
        b'precision="FP32"/></input><output><port id="1" precision="FP32"/></output></layer>'
        % (i + 1, i)
        for i in range(count)
    )
    edges = b"".join(
        b'<edge from-layer="0" from-port="0" to-layer="%d" to-port="0"/>' % (i + 1)
        for i in range(count)
    )
    xml = (
        b'<?xml version="1.0"?><net name="wide" version="11"><layers>'
        b'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="?,8" '
        b'element_type="f32"/><output><port id="0" precision="FP32"/></output></layer>'
        + relus
        + b"</layers><edges>"
        + edges
        + b"</edges></net>"
    )
    pte = crafted(lowered, "dynamic", xml=xml, signature=b"T/T")
    with pytest.raises(ExecutionError, match=r"a layer output \(id 0\) read by more than 4096"):
        load_program(pte).load_method("forward")


def test_xml_in_another_encoding_than_utf8_is_refused(lowered):
    # pugixml reads a UTF-16 document after a byte-order mark; this pass would read its bytes.
    xml = sections_of(lowered["static"][1])["xml"]
    utf16 = b"\xff\xfe" + xml.decode().encode("utf-16-le")
    with pytest.raises(ExecutionError, match="holds a NUL byte"):
        load_program(crafted(lowered, "static", xml=utf16)).load_method("forward")


def test_executorchs_own_lowering_refuses_a_repeated_device_before_conversion():
    from executorch.exir import to_edge_transform_and_lower

    from ov_runtime import OpenvinoPartitioner, compile_specs
    from ov_spec import CompileSpecError

    exported = torch.export.export(Function(lambda x: x + 1), (torch.ones(2, 8),))
    with pytest.raises(CompileSpecError, match="names the device 'CPU' twice"):
        to_edge_transform_and_lower(
            exported, partitioner=[OpenvinoPartitioner(compile_specs(device="AUTO:CPU,CPU"))]
        )


def test_executorchs_own_lowering_keeps_a_cat_too_wide_to_compile_on_the_cpu():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    from ov_partition.op_support import MAX_CAT_INPUTS
    from ov_runtime import OpenvinoPartitioner

    model = Function(lambda x: torch.cat([x] * (MAX_CAT_INPUTS + 1)) + 1)
    x = torch.randn(1, 2)
    program = to_edge_transform_and_lower(
        torch.export.export(model, (x,)), partitioner=[OpenvinoPartitioner()]
    ).to_executorch()
    loaded = Runtime.get().load_program(program.buffer)
    (output,) = loaded.load_method("forward").execute([x])
    assert torch.equal(output, model(x))
