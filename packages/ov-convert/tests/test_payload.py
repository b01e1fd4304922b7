import struct

import pytest

from ov_convert import MAGIC, VERSION, Payload, PayloadError

PAYLOAD = Payload(
    xml=b"<net/>",
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
    assert (version, header_size) == (2, 80)
    options_offset, options_size = struct.unpack_from("<QQ", data, 16)
    assert options_offset == header_size
    options = data[options_offset : options_offset + options_size]
    assert options == b"GPU.1\0INFERENCE_PRECISION_HINT\0f16\0CACHE_DIR\0/tmp/c ache\0"
    signature_offset, signature_size = struct.unpack_from("<QQ", data, 32)
    assert data[signature_offset : signature_offset + signature_size] == b"TS/T"


def test_a_device_without_properties_round_trips():
    payload = Payload(xml=b"<net/>", weights=b"", device="CPU")
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
        PayloadError, match=rf"version is {VERSION + 1}; this release reads version 2$"
    ):
        Payload.from_bytes(bytes(data))


def test_version_1_is_refused_with_what_to_do():
    data = bytearray(PAYLOAD.to_bytes())
    struct.pack_into("<I", data, 8, 1)
    with pytest.raises(PayloadError, match=r"version is 1.*lower the program again"):
        Payload.from_bytes(bytes(data))


@pytest.mark.parametrize("keep", [0, 10, 79])
def test_shorter_than_the_header(keep):
    data = PAYLOAD.to_bytes()[:keep]
    with pytest.raises(PayloadError, match="header"):
        Payload.from_bytes(data)


def test_truncated_weights():
    data = PAYLOAD.to_bytes()
    with pytest.raises(PayloadError, match="weights section"):
        Payload.from_bytes(data[:-1])


def test_options_without_their_last_nul_are_refused():
    data = bytearray(PAYLOAD.to_bytes())
    options_size = struct.unpack_from("<Q", data, 24)[0]
    struct.pack_into("<Q", data, 24, options_size - 1)
    with pytest.raises(PayloadError, match="NUL-terminated"):
        Payload.from_bytes(bytes(data))


@pytest.mark.parametrize(
    ("field", "value"),
    [("device", "C\0PU"), ("properties", {"K": "v\0"}), ("inputs", "TX")],
)
def test_values_the_layout_cannot_carry_are_refused(field, value):
    arguments = {"xml": b"<net/>", "weights": b"", "device": "CPU", field: value}
    with pytest.raises(PayloadError):
        Payload(**arguments)
