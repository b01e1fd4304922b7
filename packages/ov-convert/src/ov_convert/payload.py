r"""The delegate payload: a versioned header, the compile options, and an OpenVINO IR.

Layout of version 4 (all integers little-endian; the native runtime reads the
same layout in ``native/payload.cpp``)::

    offset  size  field
    0       8     magic  b"OVEXIR\0\0"
    8       4     version (uint32), 4
    12      4     header_size (uint32): bytes of this header, 96, or 112
                  with a compiled blob
    16      8     options_offset (uint64)    the device and OpenVINO properties
    24      8     options_size (uint64)
    32      8     signature_offset (uint64)  the kind of each delegate argument
    40      8     signature_size (uint64)
    48      8     xml_offset (uint64)        model XML, UTF-8
    56      8     xml_size (uint64)
    64      8     weights_offset (uint64)    OpenVINO .bin weights, or where
                                               they are (NAMED_WEIGHTS), 64-byte aligned
    72      8     weights_size (uint64)
    80      8     checksum (uint64): XXH3-64 (the ``xxhash`` package's
                  ``xxh3_64``, seed 0) of every byte from offset 88 on: the
                  flags, the blob's fields and every section
    88      8     flags (uint64): bit 0, ``WIDE_INT8_WEIGHTS``: int8 weights
                  beyond +-64 multiply quantized activations (see
                  ``ov_convert.int8_saturation.int8_products_may_saturate``); the
                  runtime then computes those layers in float32 on a CPU
                  without VNNI, whose int8 kernels would saturate the
                  products. Bit 1, ``NAMED_WEIGHTS``: the weights section
                  holds a :class:`NamedWeights` reference to ExecuTorch's
                  named data, not the weights. Other bits are 0, and readers
                  refuse a payload that sets one.
    96      8     blob_offset (uint64)       only in a payload with a compiled
    104     8     blob_size (uint64)         blob, whose header_size is 112

Sections, in this order after the header, with nothing between them but zero
padding before the weights and the blob, and the last ending where the payload
ends (readers accept this layout and no other):

* options: NUL-terminated UTF-8 strings, the device first, then a key and a
  value for each OpenVINO property (``CPU\0INFERENCE_PRECISION_HINT\0f32\0``).
  Resolved from the compile specs at lowering (``ov_spec``); the runtime
  applies them as they are.
* signature: one ASCII letter per delegate input, ``/``, one per output:
  ``T`` for a tensor, ``S`` for a scalar (an int, float or bool ``EValue``),
  and, for outputs only, ``C`` for a tensor the model does not compute (a
  Parameter, a Constant, or the same value as an earlier output), which the
  runtime copies out after inference instead of binding ExecuTorch's buffer;
  for inputs only, ``P`` for a tensor of KV-cache positions (int32 or int64),
  bound as ``T``, whose first element is where the call starts, or ``F`` for
  an int scalar that is that first position, bound as ``S``: a call that
  starts at 0 after earlier calls first resets the delegate's state
  (``ov_convert.appended_caches``); one input at most has either letter.
  Readers before ``P`` (or ``F``) refuse it, which is right: they would not
  reset.
  The runtime picks each argument's binding from it when the delegate loads.
* xml, then zero padding to the next 64-byte boundary, then the weights: the
  IR's ``.bin`` itself or, with ``NAMED_WEIGHTS``, the named data key of the
  ``.bin`` (NUL-terminated UTF-8), its size and its XXH3-64 (two uint64). The
  runtime gets those bytes from the method's ``NamedDataMap``, in the ``.pte``
  or in a ``.ptd`` beside it, checks their size and checksum, and hands them
  to OpenVINO where the data loader put them.
* blob (optional, the ``compiled_blob`` compile spec): zero padding to the
  next 64-byte boundary, then the OpenVINO version and the device's full name
  it was compiled with (``ov.get_version()``, the ``FULL_DEVICE_NAME``
  property), each a NUL-terminated UTF-8 string, then what OpenVINO's
  ``CompiledModel.export_model`` wrote. The runtime imports it when both
  strings match its own, and compiles the IR otherwise.

Version 4 added ``NAMED_WEIGHTS``; a version 3 payload is version 4 without
that flag, and is read as before. Payloads of versions 1 and 2 are refused
with a message to lower the program again: version 1 carried no options or
signature, and version 2 left the flags outside its checksum.

Readers of version 3 once refused fewer than 241 checksummed bytes (the
runtime's checksum took no shorter input); they now take any number. That
changed no version: every payload written before is read as it was, since no
writer ever produced fewer (an IR alone is longer), and a payload too short
to hold its sections is still refused, by the checks of its header and layout.

The IR is always carried, so that one program loads on any OpenVINO device and
on newer releases; a compiled blob only ever adds a faster first load.
"""

from __future__ import annotations

import struct
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import xxhash

from ov_convert.exceptions import PayloadError

MAGIC = b"OVEXIR\0\0"
VERSION = 4
READ_VERSIONS = (3, 4)
"""Versions this release reads; version 3 has no ``NAMED_WEIGHTS``."""
HEADER = struct.Struct("<8sII9Q")
"""The header up to the checksum."""
FLAGS = struct.Struct("<Q")
"""The flags after it, where the checksummed bytes start."""
CHECKSUMMED_FROM = HEADER.size
HEADER_SIZE = HEADER.size + FLAGS.size
BLOB_FIELDS = struct.Struct("<QQ")
"""The blob's offset and size after the flags, in a payload that carries one."""
WIDE_INT8_WEIGHTS = 1
NAMED_WEIGHTS = 2
KNOWN_FLAGS = {3: WIDE_INT8_WEIGHTS, 4: WIDE_INT8_WEIGHTS | NAMED_WEIGHTS}
"""The flag bits each version knows."""
_FLAG_NAMES = {
    WIDE_INT8_WEIGHTS: "bit 0 (WIDE_INT8_WEIGHTS)",
    NAMED_WEIGHTS: "bit 1 (NAMED_WEIGHTS)",
}
WEIGHTS_ALIGNMENT = 64
COPY_CHUNK = 16 << 20
"""Bytes of weights :meth:`Payload.to_bytes` copies from a file at a time."""
TENSOR_ARGUMENT = "T"
SCALAR_ARGUMENT = "S"
COPIED_ARGUMENT = "C"
POSITIONS_ARGUMENT = "P"
FIRST_POSITION_ARGUMENT = "F"
"""The letters of the payload's signature: a delegate argument bound as a tensor, passed as a
scalar, (outputs only) a tensor copied after inference, or (inputs only) a tensor of KV-cache
positions or a scalar that is the call's first KV-cache position
(:mod:`ov_convert.appended_caches`); ``kTensorArgument``, ``kScalarArgument``,
``kCopiedArgument``, ``kPositionsArgument`` and ``kFirstPositionArgument`` of the native
reader."""
CACHE_POSITION_ARGUMENTS = (POSITIONS_ARGUMENT, FIRST_POSITION_ARGUMENT)
"""The letters of an input that says where a call starts in OpenVINO's own KV cache."""


NAMED_WEIGHTS_FIELDS = struct.Struct("<QQ")
"""The size and the XXH3-64 of named weights, after their key."""


@dataclass(frozen=True)
class NamedWeights:
    """Where a delegate's weights are: a key of ExecuTorch's named data, with their size and checksum.

    ExecuTorch stores named data once per key, in the ``.pte`` or in a ``.ptd``
    beside it, and hands it to a backend's ``init`` through the method's
    ``NamedDataMap``; so delegates that name the same key share one copy.

    Attributes:
        key: The named data key (UTF-8, no NUL).
        size: The weights' size in bytes.
        checksum: XXH3-64 (seed 0) of the weights, which the runtime verifies
            before OpenVINO reads them.
    """

    key: str
    size: int
    checksum: int

    def to_bytes(self) -> bytes:
        """The weights section: the key, NUL-terminated, then the size and the checksum."""
        return self.key.encode() + b"\0" + NAMED_WEIGHTS_FIELDS.pack(self.size, self.checksum)

    @classmethod
    def from_bytes(cls, section: bytes) -> NamedWeights:
        """Parse a weights section of a payload with ``NAMED_WEIGHTS``.

        Raises:
            PayloadError: The section is not a key, a NUL and two uint64.
        """
        key, nul, fields = section.partition(b"\0")
        if not key or not nul or len(fields) != NAMED_WEIGHTS_FIELDS.size:
            raise PayloadError(
                "payload weights section is not a named data key, NUL-terminated, then the "
                "weights' size and checksum (two uint64)"
            )
        return cls(key.decode(errors="replace"), *NAMED_WEIGHTS_FIELDS.unpack(fields))


@dataclass(frozen=True)
class CompiledBlob:
    """A model compiled for one device by OpenVINO's ``export_model``, and where it was made.

    Attributes:
        openvino_version: ``openvino.get_version()`` of the lowering machine
            (``2026.4.1-22982-...``); OpenVINO imports blobs of its own build only.
        device_name: The device's ``FULL_DEVICE_NAME`` (``Intel(R) Core(TM)
            ...``): the compiled kernels were chosen for it.
        data: The exported bytes.
    """

    openvino_version: str
    device_name: str
    data: bytes

    def to_bytes(self) -> bytes:
        """The blob section: the two NUL-terminated strings, then the data."""
        return b"".join(
            (self.openvino_version.encode() + b"\0", self.device_name.encode() + b"\0", self.data)
        )

    @classmethod
    def from_bytes(cls, section: bytes) -> CompiledBlob:
        """Parse a blob section.

        Raises:
            PayloadError: The section lacks its two NUL-terminated strings.
        """
        version, nul, rest = section.partition(b"\0")
        name, nul_after_name, data = rest.partition(b"\0")
        if not (nul and nul_after_name):
            raise PayloadError(
                "payload blob section does not start with the OpenVINO version and the device "
                "name, each NUL-terminated"
            )
        return cls(version.decode(errors="replace"), name.decode(errors="replace"), data)


@dataclass(frozen=True)
class Payload:
    """An OpenVINO IR and what the runtime needs to compile and bind it.

    Attributes:
        xml: The model XML (UTF-8 bytes).
        weights: The model's ``.bin`` weights (bytes; may be empty), or
            empty when ``named_weights`` says where they are.
        device: The OpenVINO device string to compile for (``CPU``).
        properties: OpenVINO properties to compile with
            (``{"INFERENCE_PRECISION_HINT": "f32"}``).
        inputs: One letter per delegate input, ``T`` (tensor), ``S`` (scalar),
            ``P`` (a tensor of KV-cache positions) or ``F`` (the first
            KV-cache position, a scalar).
        outputs: One letter per delegate output, ``T``, ``S``, or ``C`` (a
            tensor passed through from an input, a constant or another output).
        wide_int8_weights: The ``WIDE_INT8_WEIGHTS`` flag.
        compiled_blob: The model compiled for ``device`` at lowering, or None.
        named_weights: Where the weights are in ExecuTorch's named data (the
            ``NAMED_WEIGHTS`` flag), or None when the payload carries them.
    """

    xml: bytes
    weights: bytes
    device: str
    properties: Mapping[str, str] = field(default_factory=dict)
    inputs: str = ""
    outputs: str = ""
    wide_int8_weights: bool = False
    compiled_blob: CompiledBlob | None = None
    named_weights: NamedWeights | None = None

    def __post_init__(self) -> None:
        if self.named_weights is not None and self.weights:
            raise PayloadError("payload weights are carried or named, not both")
        for text in (self.device, *self.properties, *self.properties.values()):
            if "\0" in text:
                raise PayloadError(f"payload option {text!r} holds a NUL character")
        inputs, outputs = {TENSOR_ARGUMENT, SCALAR_ARGUMENT}, {TENSOR_ARGUMENT, SCALAR_ARGUMENT}
        if set(self.inputs) - inputs - set(CACHE_POSITION_ARGUMENTS) or set(
            self.outputs
        ) - outputs - {COPIED_ARGUMENT}:
            raise PayloadError(
                f"payload signature {self.inputs}/{self.outputs} has letters other than "
                f"{TENSOR_ARGUMENT} and {SCALAR_ARGUMENT}, {POSITIONS_ARGUMENT} and "
                f"{FIRST_POSITION_ARGUMENT} for inputs and {COPIED_ARGUMENT} for outputs"
            )
        if sum(self.inputs.count(letter) for letter in CACHE_POSITION_ARGUMENTS) > 1:
            raise PayloadError(
                f"payload signature {self.inputs}/{self.outputs} marks more than one input "
                "as the KV-cache positions"
            )

    def to_bytes(self, weights_file: Path | None = None) -> bytes:
        """Serialize to the processed bytes of a delegate.

        Args:
            weights_file: A ``.bin`` file to take the weights from, in place of
                ``weights`` (then empty). It is copied in chunks into a
                temporary file of the whole payload beside it, which is read
                back once: the returned bytes are the only copy of the weights
                in memory, which keeps the peak memory of lowering a large
                model down.

        Raises:
            PayloadError: The payload has both ``weights`` (or ``named_weights``)
                and a ``weights_file``.
        """
        if weights_file is not None and (self.weights or self.named_weights):
            raise PayloadError("payload weights come from its bytes or from a file, not both")
        if self.named_weights is not None:
            return replace(self, weights=self.named_weights.to_bytes(), named_weights=None)._write(
                None, NAMED_WEIGHTS
            )
        return self._write(weights_file, 0)

    def _write(self, weights_file: Path | None, flags_set: int) -> bytes:
        strings = [self.device, *(s for pair in self.properties.items() for s in pair)]
        options = b"".join(s.encode("utf-8") + b"\0" for s in strings)
        signature = f"{self.inputs}/{self.outputs}".encode("ascii")
        weights_size = len(self.weights) if weights_file is None else weights_file.stat().st_size
        blob = b"" if self.compiled_blob is None else self.compiled_blob.to_bytes()
        sizes = [len(options), len(signature), len(self.xml), weights_size]
        header_size = HEADER_SIZE + (BLOB_FIELDS.size if blob else 0)
        offsets = section_offsets(header_size, [*sizes, len(blob)] if blob else sizes)
        padding = b"\0" * (offsets[3] - offsets[2] - len(self.xml))
        before_weights = (options, signature, self.xml, padding)
        after_weights = (b"\0" * (offsets[-1] - offsets[3] - weights_size), blob) if blob else ()
        flags = FLAGS.pack((WIDE_INT8_WEIGHTS if self.wide_int8_weights else 0) | flags_set)
        if blob:
            flags += BLOB_FIELDS.pack(offsets[-1], len(blob))
        fields = [value for pair in zip(offsets[:4], sizes, strict=True) for value in pair]
        checksum = xxhash.xxh3_64(flags)
        for piece in before_weights:
            checksum.update(piece)

        def header() -> bytes:
            for piece in after_weights:
                checksum.update(piece)
            return HEADER.pack(MAGIC, VERSION, header_size, *fields, checksum.intdigest()) + flags

        if weights_file is None:
            checksum.update(self.weights)
            return b"".join((header(), *before_weights, self.weights, *after_weights))
        with (
            weights_file.open("rb") as source,
            tempfile.TemporaryFile(dir=weights_file.parent) as assembled,
        ):
            assembled.write(bytes(header_size))
            assembled.writelines(before_weights)
            while chunk := source.read(COPY_CHUNK):
                checksum.update(chunk)
                assembled.write(chunk)
            assembled.writelines(after_weights)
            assembled.seek(0)
            assembled.write(header())
            assembled.seek(0)
            return assembled.read()

    @classmethod
    def from_bytes(cls, data: bytes) -> Payload:
        """Parse processed bytes.

        Raises:
            PayloadError: The bytes are shorter than the header, carry another
                magic, version or header size, fail the checksum, set unknown
                flag bits, lay their sections out otherwise than
                :meth:`to_bytes` does, or hold options or a signature that do
                not parse.
        """
        header_size, fields, flags = _verified_header(data)
        _check_layout(data, header_size, fields)
        options, signature, xml, weights, *blob = (
            data[offset : offset + size]
            for offset, size in zip(fields[::2], fields[1::2], strict=True)
        )
        strings = options.split(b"\0")
        if not options.endswith(b"\0") or len(strings) % 2:
            raise PayloadError(
                "payload options are not a device and key/value pairs of NUL-terminated strings"
            )
        text = [s.decode("utf-8", errors="replace") for s in strings[:-1]]
        inputs, slash, outputs = signature.decode("ascii", errors="replace").partition("/")
        if not slash:
            raise PayloadError(f"payload signature {signature!r} has no '/'")
        named = NamedWeights.from_bytes(weights) if flags & NAMED_WEIGHTS else None
        return cls(
            xml=xml,
            weights=b"" if named else weights,
            named_weights=named,
            device=text[0],
            properties=dict(zip(text[1::2], text[2::2], strict=True)),
            inputs=inputs,
            outputs=outputs,
            wide_int8_weights=bool(flags & WIDE_INT8_WEIGHTS),
            compiled_blob=CompiledBlob.from_bytes(blob[0]) if blob else None,
        )


def payload_end(data: bytes | bytearray, start: int = 0) -> int:
    """Where the payload that starts at ``start`` of ``data`` ends, read from its header.

    The end of its last section: the blob in a header of 112 bytes, else the
    weights. Finds a payload inside a serialized program; nothing is verified.
    """
    last = HEADER_SIZE if struct.unpack_from("<I", data, start + 12)[0] > HEADER_SIZE else 64
    offset, size = struct.unpack_from("<QQ", data, start + last)
    return int(start + offset + size)


def reseal(data: bytearray, start: int = 0, end: int | None = None) -> None:
    """Recompute in place the checksum of the payload from ``start`` to ``end`` of ``data``.

    What a crafted program carries, so that a test or the fuzzer reaches the
    checks that come after the checksum. ``end`` defaults to
    :func:`payload_end`.
    """
    end = payload_end(data, start) if end is None else end
    body = memoryview(data)[start + CHECKSUMMED_FROM : end]
    struct.pack_into("<Q", data, start + HEADER.size - 8, xxhash.xxh3_64_intdigest(body))


_SECTIONS = ("options", "signature", "xml", "weights", "blob")
_ALIGNED = frozenset({"weights", "blob"})


def section_offsets(start: int, sizes: list[int]) -> list[int]:
    """Where each section of ``sizes`` starts in a payload whose header has ``start`` bytes.

    One after the other, in the order options, signature, xml, weights, blob,
    the weights and the blob at the next 64-byte boundary.
    """
    offsets = []
    for name, size in zip(_SECTIONS[: len(sizes)], sizes, strict=True):
        if name in _ALIGNED:
            start += -start % WEIGHTS_ALIGNMENT
        offsets.append(start)
        start += size
    return offsets


def _verified_header(data: bytes) -> tuple[int, list[int], int]:
    """The header size, the sections' offsets and sizes, and the flags, once the checksum matches.

    Nothing past the header's fixed fields is read before the checksum is verified.
    """
    if len(data) < HEADER_SIZE:
        raise PayloadError(f"payload has {len(data)} bytes; the header alone needs {HEADER_SIZE}")
    magic, version, header_size, *fields, checksum = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise PayloadError(f"payload magic is {magic!r}; expected {MAGIC!r}")
    if version not in READ_VERSIONS:
        raise PayloadError(
            f"payload version is {version}; this release reads versions "
            f"{' and '.join(map(str, READ_VERSIONS))}"
            + ("; lower the program again with this release" if version < VERSION else "")
        )
    sizes = (HEADER_SIZE, HEADER_SIZE + BLOB_FIELDS.size)
    if header_size not in sizes or header_size > len(data):
        raise PayloadError(
            f"payload header_size is {header_size}; version {version} has {sizes[0]}, or "
            f"{sizes[1]} with a compiled blob, within the {len(data)} bytes given"
        )
    if xxhash.xxh3_64_intdigest(memoryview(data)[CHECKSUMMED_FROM:]) != checksum:
        raise PayloadError("payload checksum does not match its bytes: the payload is corrupt")
    (flags,) = FLAGS.unpack_from(data, CHECKSUMMED_FROM)
    if unknown := flags & ~KNOWN_FLAGS[version]:
        known = " and ".join(
            name for bit, name in _FLAG_NAMES.items() if bit & KNOWN_FLAGS[version]
        )
        raise PayloadError(
            f"payload flags set the bits {unknown:#x}, which version {version} does not have; "
            f"it has {known}"
        )
    if header_size == sizes[1]:
        fields += BLOB_FIELDS.unpack_from(data, HEADER_SIZE)
    return header_size, fields, flags


def _check_layout(data: bytes, header_size: int, fields: list[int]) -> None:
    """Refuse any layout but the one :meth:`Payload.to_bytes` writes."""
    offsets, sizes = fields[::2], fields[1::2]
    expected_offsets = section_offsets(header_size, sizes)
    for name, offset, expected in zip(
        _SECTIONS[: len(offsets)], offsets, expected_offsets, strict=True
    ):
        if offset != expected:
            raise PayloadError(
                f"payload {name} section starts at {offset}; this release writes it at {expected}"
            )
    end = offsets[-1] + sizes[-1]
    if end != len(data):
        raise PayloadError(
            f"payload {_SECTIONS[len(offsets) - 1]} section ends at {end}, not at the payload's "
            f"end ({len(data)} bytes)"
        )
    for index in range(2, len(offsets) - 1):  # the xml, and the weights when a blob follows
        if any(data[offsets[index] + sizes[index] : offsets[index + 1]]):
            raise PayloadError("payload padding before the weights or the blob is not zero")
