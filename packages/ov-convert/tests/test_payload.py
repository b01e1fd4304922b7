import struct

import pytest

from ov_convert import MAGIC, VERSION, Payload, PayloadError


def test_round_trip_and_aligned_weights():
    payload = Payload(xml=b"<net/>", weights=b"\x01\x02\x03")
    data = payload.to_bytes()
    assert data.startswith(MAGIC)
    assert Payload.from_bytes(data) == payload
    weights_offset = struct.unpack_from("<Q", data, 32)[0]
    assert weights_offset % 64 == 0


def test_wrong_magic():
    data = bytearray(Payload(xml=b"<net/>", weights=b"").to_bytes())
    data[0:8] = b"NOTOURS\0"
    with pytest.raises(PayloadError, match="magic"):
        Payload.from_bytes(bytes(data))


def test_wrong_version():
    data = bytearray(Payload(xml=b"<net/>", weights=b"").to_bytes())
    struct.pack_into("<I", data, 8, VERSION + 1)
    with pytest.raises(PayloadError, match=f"version is {VERSION + 1}"):
        Payload.from_bytes(bytes(data))


@pytest.mark.parametrize("keep", [0, 10, 47])
def test_shorter_than_the_header(keep):
    data = Payload(xml=b"<net/>", weights=b"").to_bytes()[:keep]
    with pytest.raises(PayloadError, match="header"):
        Payload.from_bytes(data)


def test_truncated_weights():
    data = Payload(xml=b"<net/>", weights=b"x" * 100).to_bytes()
    with pytest.raises(PayloadError, match="weights section"):
        Payload.from_bytes(data[:-1])
