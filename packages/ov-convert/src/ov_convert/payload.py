r"""The delegate payload: a small versioned header followed by an OpenVINO IR.

Layout (all integers little-endian; the native runtime reads the same layout
in ``native/payload.cpp``)::

    offset  size  field
    0       8     magic  b"OVEXIR\0\0"
    8       4     version (uint32), currently 1
    12      4     reserved, 0
    16      8     xml_offset (uint64)   model XML, UTF-8
    24      8     xml_size (uint64)
    32      8     weights_offset (uint64)   OpenVINO .bin weights, 64-byte aligned
    40      8     weights_size (uint64)

The IR, not a compiled blob, is carried so that lowering needs no target
device and one program loads on any OpenVINO device and on newer releases.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ov_convert.exceptions import PayloadError

MAGIC = b"OVEXIR\0\0"
VERSION = 1
HEADER = struct.Struct("<8sII4Q")
WEIGHTS_ALIGNMENT = 64


@dataclass(frozen=True)
class Payload:
    """An OpenVINO IR as carried in a delegate.

    Attributes:
        xml: The model XML (UTF-8 bytes).
        weights: The model's ``.bin`` weights (bytes; may be empty).
    """

    xml: bytes
    weights: bytes

    def to_bytes(self) -> bytes:
        """Serialize to the processed bytes of a delegate."""
        xml_offset = HEADER.size
        weights_offset = -(-(xml_offset + len(self.xml)) // WEIGHTS_ALIGNMENT) * WEIGHTS_ALIGNMENT
        header = HEADER.pack(
            MAGIC, VERSION, 0, xml_offset, len(self.xml), weights_offset, len(self.weights)
        )
        padding = b"\0" * (weights_offset - xml_offset - len(self.xml))
        return header + self.xml + padding + self.weights

    @classmethod
    def from_bytes(cls, data: bytes) -> Payload:
        """Parse processed bytes.

        Raises:
            PayloadError: The bytes are shorter than the header, carry another
                magic or version, or name sections outside the buffer.
        """
        if len(data) < HEADER.size:
            raise PayloadError(
                f"payload has {len(data)} bytes; the header alone needs {HEADER.size}"
            )
        magic, version, _, xml_offset, xml_size, weights_offset, weights_size = HEADER.unpack_from(
            data
        )
        if magic != MAGIC:
            raise PayloadError(f"payload magic is {magic!r}; expected {MAGIC!r}")
        if version != VERSION:
            raise PayloadError(
                f"payload version is {version}; this release reads version {VERSION}"
            )
        for name, offset, size in (
            ("xml", xml_offset, xml_size),
            ("weights", weights_offset, weights_size),
        ):
            if offset + size > len(data):
                raise PayloadError(
                    f"payload {name} section [{offset}, {offset + size}) ends past the "
                    f"{len(data)} bytes given"
                )
        return cls(
            xml=data[xml_offset : xml_offset + xml_size],
            weights=data[weights_offset : weights_offset + weights_size],
        )
