import dataclasses
import struct

import pytest
import xxhash

from ov_convert import MAGIC, VERSION, CompiledBlob, Payload, PayloadError
from ov_convert import payload as payload_module
from ov_convert.payload import NAMED_WEIGHTS, WIDE_INT8_WEIGHTS, NamedWeights, reseal

XML = b"<net>" + b" " * 300 + b"</net>"  # holds byte 200 of the payload (a flipped bit in the xml)
PAYLOAD = Payload(
    xml=XML,
    weights=b"\x01\x02\x03",
    device="GPU.1",
    properties={"INFERENCE_PRECISION_HINT": "f16", "CACHE_DIR": "/tmp/c ache"},
    inputs="TS",
    outputs="T",
)


def test_round_trip_and_aligned_weights():
    data = PAYLOAD.to_bytes()
    assert data.startswith(MAGIC)
    assert Payload.from_bytes(data) == PAYLOAD
    weights_offset = struct.unpack_from("<Q", data, 64)[0]
    assert weights_offset % 64 == 0
    assert data.endswith(PAYLOAD.weights)


def test_header_records_its_own_size_and_the_sections_follow_it():
    data = PAYLOAD.to_bytes()
    version, header_size = struct.unpack_from("<II", data, 8)
    assert (version, header_size) == (4, 96)
    options_offset, options_size = struct.unpack_from("<QQ", data, 16)
    assert options_offset == header_size
    options = data[options_offset : options_offset + options_size]
    assert options == b"GPU.1\0INFERENCE_PRECISION_HINT\0f16\0CACHE_DIR\0/tmp/c ache\0"
    signature_offset, signature_size = struct.unpack_from("<QQ", data, 32)
    assert data[signature_offset : signature_offset + signature_size] == b"TS/T"


def test_the_wide_int8_weights_flag_round_trips_in_the_flags_field():
    payload = Payload(xml=XML, weights=b"", device="CPU", wide_int8_weights=True)
    data = payload.to_bytes()
    assert struct.unpack_from("<Q", data, 88)[0] == WIDE_INT8_WEIGHTS
    assert Payload.from_bytes(data) == payload
    assert struct.unpack_from("<Q", PAYLOAD.to_bytes(), 88)[0] == 0


def test_the_flags_are_under_the_checksum():
    data = bytearray(PAYLOAD.to_bytes())
    data[88] ^= WIDE_INT8_WEIGHTS
    with pytest.raises(PayloadError, match="checksum does not match"):
        Payload.from_bytes(bytes(data))


@pytest.mark.parametrize("bits", [4, 1 << 63, 0xF0])
def test_unknown_flag_bits_are_refused_with_their_value(bits):
    data = bytearray(PAYLOAD.to_bytes())
    struct.pack_into("<Q", data, 88, bits | WIDE_INT8_WEIGHTS)
    reseal(data)
    with pytest.raises(PayloadError, match=rf"flags set the bits {bits:#x}, which version 4 does"):
        Payload.from_bytes(bytes(data))


def test_named_weights_round_trip_as_a_reference_in_the_weights_section():
    weights = bytes(range(200))
    named = NamedWeights("OvExecutorchBackend.weights.abc", 200, xxhash.xxh3_64_intdigest(weights))
    payload = dataclasses.replace(PAYLOAD, weights=b"", named_weights=named)
    data = payload.to_bytes()
    assert struct.unpack_from("<Q", data, 88)[0] == NAMED_WEIGHTS
    weights_offset, weights_size = struct.unpack_from("<QQ", data, 64)
    section = data[weights_offset : weights_offset + weights_size]
    assert section == named.key.encode() + b"\0" + struct.pack("<QQ", 200, named.checksum)
    assert Payload.from_bytes(data) == payload
    with pytest.raises(PayloadError, match="carried or named, not both"):
        dataclasses.replace(payload, weights=b"\1")


@pytest.mark.parametrize("section", [b"", b"key", b"key\0" + bytes(15), b"\0" + bytes(16)])
def test_a_named_weights_section_that_does_not_parse_is_refused(section):
    data = bytearray(dataclasses.replace(PAYLOAD, weights=section).to_bytes())
    struct.pack_into("<Q", data, 88, NAMED_WEIGHTS)
    reseal(data)
    with pytest.raises(PayloadError, match="not a named data key"):
        Payload.from_bytes(bytes(data))


def test_a_version_3_payload_reads_as_before_and_has_no_named_weights():
    data = bytearray(PAYLOAD.to_bytes())
    struct.pack_into("<I", data, 8, 3)
    assert Payload.from_bytes(bytes(data)) == PAYLOAD  # the version is outside the checksum
    struct.pack_into("<Q", data, 88, NAMED_WEIGHTS)
    reseal(data)
    with pytest.raises(PayloadError, match="bits 0x2, which version 3 does not have"):
        Payload.from_bytes(bytes(data))


@pytest.mark.parametrize("header_size", [88, 104, 120])
def test_a_header_size_of_another_layout_is_refused(header_size):
    data = bytearray(PAYLOAD.to_bytes())
    struct.pack_into("<I", data, 12, header_size)
    reseal(data)
    with pytest.raises(PayloadError, match=rf"header_size is {header_size}; version 4 has 96"):
        Payload.from_bytes(bytes(data))


def test_a_device_without_properties_round_trips():
    payload = Payload(xml=XML, weights=b"", device="CPU")
    assert Payload.from_bytes(payload.to_bytes()) == payload


def test_wrong_magic():
    data = bytearray(PAYLOAD.to_bytes())
    data[0:8] = b"NOTOURS\0"
    with pytest.raises(PayloadError, match="magic"):
        Payload.from_bytes(bytes(data))


def test_newer_version_is_named():
    data = bytearray(PAYLOAD.to_bytes())
    struct.pack_into("<I", data, 8, VERSION + 1)
    with pytest.raises(
        PayloadError, match=rf"version is {VERSION + 1}; this release reads versions 3 and 4$"
    ):
        Payload.from_bytes(bytes(data))


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_version_is_refused_with_what_to_do(version):
    data = bytearray(PAYLOAD.to_bytes())
    struct.pack_into("<I", data, 8, version)
    with pytest.raises(PayloadError, match=rf"version is {version}.*lower the program again"):
        Payload.from_bytes(bytes(data))


@pytest.mark.parametrize("keep", [0, 10, 87, 95])
def test_shorter_than_the_header(keep):
    data = PAYLOAD.to_bytes()[:keep]
    with pytest.raises(PayloadError, match="header"):
        Payload.from_bytes(data)


def test_truncated_weights():
    data = PAYLOAD.to_bytes()[:-1]
    with pytest.raises(PayloadError, match="checksum does not match"):
        Payload.from_bytes(data)
    with pytest.raises(PayloadError, match="weights section ends at"):
        Payload.from_bytes(with_checksum(bytearray(data)))


def with_checksum(data: bytearray) -> bytes:
    """The bytes with the checksum of all from offset 88 on recomputed."""
    struct.pack_into("<Q", data, 80, xxhash.xxh3_64_intdigest(bytes(data[88:])))
    return bytes(data)


def test_options_without_their_last_nul_are_refused():
    data = bytearray(PAYLOAD.to_bytes())
    signature_offset = struct.unpack_from("<Q", data, 32)[0]
    data[signature_offset - 1] = ord("x")  # the last NUL of the options
    with pytest.raises(PayloadError, match="NUL-terminated"):
        Payload.from_bytes(with_checksum(data))


@pytest.mark.parametrize(
    ("field", "delta", "reason"),
    [
        (16, 1, "options section starts at 97; this release writes it at 96"),
        (24, 1, "signature section starts at"),
        (32, -1, "signature section starts at"),
        (48, 8, "xml section starts at"),
        (64, 64, "weights section starts at"),
        (72, -1, "weights section ends at"),
        (72, 1, "weights section ends at"),
        (12, 16, "options section starts at 96; this release writes it at 112"),
    ],
)
def test_any_layout_but_the_written_one_is_refused(field, delta, reason):
    data = bytearray(PAYLOAD.to_bytes())
    value = struct.unpack_from("<Q" if field != 12 else "<I", data, field)[0]
    struct.pack_into("<Q" if field != 12 else "<I", data, field, value + delta)
    with pytest.raises(PayloadError, match=reason):
        Payload.from_bytes(with_checksum(data))


def test_padding_before_the_weights_must_be_zero():
    data = bytearray(PAYLOAD.to_bytes())
    xml_offset, xml_size = struct.unpack_from("<QQ", data, 48)
    data[xml_offset + xml_size] = 1
    with pytest.raises(PayloadError, match="padding"):
        Payload.from_bytes(with_checksum(data))


@pytest.mark.parametrize("position", [100, 200, -1], ids=["options", "xml", "weights"])
def test_a_flipped_bit_after_the_header_fails_the_checksum(position):
    data = bytearray(PAYLOAD.to_bytes())
    data[position] ^= 0x10
    with pytest.raises(PayloadError, match="checksum does not match"):
        Payload.from_bytes(bytes(data))


def test_a_payload_of_few_checksummed_bytes_round_trips():
    payload = Payload(xml=b"<net/>", weights=b"", device="CPU")
    data = payload.to_bytes()
    assert len(data) - payload_module.CHECKSUMMED_FROM <= 240  # XXH3's short and medium paths
    assert Payload.from_bytes(data) == payload


def header_only(flags: int, extra: bytes) -> bytes:
    """A bare header (every section empty at offset 0) and ``extra``, its checksum matching."""
    body = payload_module.FLAGS.pack(flags) + extra
    header = payload_module.HEADER.pack(
        MAGIC, VERSION, payload_module.HEADER_SIZE, *[0] * 8, xxhash.xxh3_64_intdigest(body)
    )
    return header + body


@pytest.mark.parametrize("extra", [0, 1, 8, 100], ids=lambda n: f"{8 + n}_checksummed")
def test_a_few_checksummed_bytes_that_match_pass_the_checksum(extra):
    # No minimum size: the check after the checksum, the flags', is the one that refuses.
    with pytest.raises(PayloadError, match="flags set the bits 0x4"):
        Payload.from_bytes(header_only(4, bytes(range(extra))))
    with pytest.raises(PayloadError, match="checksum does not match"):
        Payload.from_bytes(header_only(4, bytes(range(extra)))[:-1] + b"\xff")


@pytest.mark.parametrize(
    ("field", "value"),
    [("device", "C\0PU"), ("properties", {"K": "v\0"}), ("inputs", "TX"), ("inputs", "C")],
)
def test_values_the_layout_cannot_carry_are_refused(field, value):
    arguments = {"xml": XML, "weights": b"", "device": "CPU", field: value}
    with pytest.raises(PayloadError):
        Payload(**arguments)


def test_copied_outputs_round_trip():
    payload = Payload(xml=XML, weights=b"", device="CPU", inputs="T", outputs="TCS")
    assert Payload.from_bytes(payload.to_bytes()).outputs == "TCS"


def test_weights_from_a_file_give_the_same_bytes(tmp_path):
    weights = bytes(range(256)) * 4097
    path = tmp_path / "model.bin"
    path.write_bytes(weights)
    in_memory = dataclasses.replace(PAYLOAD, weights=weights).to_bytes()
    assert dataclasses.replace(PAYLOAD, weights=b"").to_bytes(weights_file=path) == in_memory
    assert Payload.from_bytes(in_memory).weights == weights
    assert sorted(tmp_path.iterdir()) == [path]  # the assembled payload is gone


def test_weights_are_copied_from_a_file_in_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(payload_module, "COPY_CHUNK", 1000)
    path = tmp_path / "model.bin"
    path.write_bytes(bytes(range(256)) * 40)
    data = dataclasses.replace(PAYLOAD, weights=b"").to_bytes(weights_file=path)
    assert Payload.from_bytes(data).weights == path.read_bytes()


def test_weights_in_bytes_and_in_a_file_are_refused(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"\1")
    with pytest.raises(PayloadError, match="not both"):
        PAYLOAD.to_bytes(weights_file=path)


BLOB = CompiledBlob(openvino_version="2026.4.1-test", device_name="Some CPU", data=b"\0\1blob")


def test_a_compiled_blob_round_trips_after_the_weights_64_byte_aligned():
    payload = dataclasses.replace(PAYLOAD, compiled_blob=BLOB)
    data = payload.to_bytes()
    assert Payload.from_bytes(data) == payload
    assert struct.unpack_from("<I", data, 12)[0] == 112
    blob_offset, blob_size = struct.unpack_from("<QQ", data, 96)
    assert blob_offset % 64 == 0 and blob_offset + blob_size == len(data)
    assert data[blob_offset:] == b"2026.4.1-test\0Some CPU\0\0\1blob"
    weights_offset = struct.unpack_from("<Q", data, 64)[0]
    assert data[weights_offset : weights_offset + 3] == PAYLOAD.weights
    # Without a blob the header stays as it was.
    assert struct.unpack_from("<I", PAYLOAD.to_bytes(), 12)[0] == 96


def test_a_compiled_blob_with_weights_from_a_file_gives_the_same_bytes(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(PAYLOAD.weights)
    payload = dataclasses.replace(PAYLOAD, compiled_blob=BLOB)
    from_file = dataclasses.replace(payload, weights=b"").to_bytes(weights_file=path)
    assert from_file == payload.to_bytes()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda data, blob: data[:blob] + b"x" * (len(data) - blob), "does not start with"),
        (lambda data, blob: data[: blob - 1] + b"x" + data[blob:], "padding before"),
        (lambda data, blob: data + b"\0", "blob section ends at"),
    ],
    ids=["names_missing", "padding", "trailing_bytes"],
)
def test_a_blob_section_out_of_place_or_without_its_names_is_refused(change, reason):
    data = dataclasses.replace(PAYLOAD, compiled_blob=BLOB).to_bytes()
    blob_offset = struct.unpack_from("<Q", data, 96)[0]
    with pytest.raises(PayloadError, match=reason):
        Payload.from_bytes(with_checksum(bytearray(change(data, blob_offset))))


@pytest.mark.parametrize(
    ("inputs", "outputs", "reason"),
    [
        ("TX", "T", "has letters other than"),
        ("T", "P", "has letters other than"),
        ("T", "F", "has letters other than"),
        ("PF", "T", "more than one input as the KV-cache positions"),
    ],
)
def test_signature_letters_are_checked(inputs, outputs, reason):
    with pytest.raises(PayloadError, match=reason):
        dataclasses.replace(PAYLOAD, inputs=inputs, outputs=outputs)


def test_a_first_position_input_round_trips():
    payload = dataclasses.replace(PAYLOAD, inputs="TF")
    assert Payload.from_bytes(payload.to_bytes()).inputs == "TF"
