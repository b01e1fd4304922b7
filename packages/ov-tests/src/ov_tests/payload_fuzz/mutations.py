"""Seeded mutations of one delegate payload, and how to apply them.

Each mutation belongs to a family, drawn by one seeded generator:

* ``bytes`` (corrupt or crafted): a cut, a header byte, an XML byte
  (non-ASCII ones too), a byte of the weights section (the weights, or where
  a payload of named weights finds them), or a byte of the compiled blob;
* the crafted families below, which keep the model (``same_model``): the
  device (invalid UTF-8, lists that name a device twice, unknown devices),
  an OpenVINO property (unknown keys, hostile values, too many), the
  signature (letters that lie about the outputs), the flags (unknown bits;
  a flipped ``NAMED_WEIGHTS`` makes the weights section mean other weights,
  so that one may change the model),
  the blob's OpenVINO version and device name, and the XML's nesting (deep
  elements in ``rt_info``, an element flood, constructs the converter never
  writes).

A corrupt mutation leaves the checksum stale, as storage damage would; a
crafted one makes it match, as a hostile program would.
"""

from __future__ import annotations

import dataclasses
import random
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ov_convert.payload import (
    CHECKSUMMED_FROM,
    HEADER_SIZE,
    NAMED_WEIGHTS,
    WIDE_INT8_WEIGHTS,
    reseal,
    section_offsets,
)

CORRUPT = "corrupt"
CRAFTED = "crafted"
SECTIONS = ("options", "signature", "xml", "weights", "blob")


@dataclass(frozen=True)
class Mutation:
    """One change to a program's payload.

    Attributes:
        index: Its place in the seeded sequence.
        program: The name of the program it changes (``programs.programs``).
        kind: ``corrupt`` (checksum left stale) or ``crafted`` (made to match).
        family: What part it changes (``bytes``, ``device``, ``signature`` ...).
        what: A few words on the change, for reports.
        same_model: The change leaves what the model computes: a run must be
            refused or give the unmutated program's outputs.
        sections: Whole sections replaced (raw bytes); the payload is laid out again.
        writes: (payload offset, bytes) pairs, written after ``sections``.
        keep: When set, the payload is cut to this many bytes (the rest zeroed).
        through_executorch: Also run it through ``executorch.runtime``.
    """

    index: int
    program: str
    kind: str
    family: str
    what: str
    same_model: bool = False
    sections: tuple[tuple[str, bytes], ...] = ()
    writes: tuple[tuple[int, bytes], ...] = ()
    keep: int | None = None
    through_executorch: bool = False


def _layout(payload: bytes) -> dict[str, tuple[int, int]]:
    """Each section's offset and size, by name (``blob`` only when it has one)."""
    header_size = struct.unpack_from("<I", payload, 12)[0]
    fields = list(struct.unpack_from("<8Q", payload, 16))
    if header_size > HEADER_SIZE:
        fields += struct.unpack_from("<QQ", payload, HEADER_SIZE)
    return dict(zip(SECTIONS, zip(fields[::2], fields[1::2], strict=True), strict=False))


def sections_of(payload: bytes) -> dict[str, bytes]:
    """The sections of an unmutated payload, by name (``blob`` only when it has one)."""
    return {
        name: payload[offset : offset + size] for name, (offset, size) in _layout(payload).items()
    }


def relaid(payload: bytes, replaced: Mapping[str, bytes]) -> bytes:
    """``payload`` with the sections in ``replaced`` swapped in and laid out as the converter does."""
    sections = {**sections_of(payload), **replaced}
    header_size = struct.unpack_from("<I", payload, 12)[0]
    names = [name for name in SECTIONS if name in sections]
    offsets = section_offsets(header_size, [len(sections[name]) for name in names])
    data = bytearray(payload[:header_size])
    for index, (name, offset) in enumerate(zip(names, offsets, strict=True)):
        size = len(sections[name])
        struct.pack_into("<QQ", data, 16 + 16 * index if index < 4 else HEADER_SIZE, offset, size)
        data += bytes(offset - len(data)) + sections[name]
    return bytes(data)


def apply(payload: bytes, mutation: Mutation) -> bytes:
    """The payload with ``mutation`` applied (and its checksum made to match if crafted)."""
    data = bytearray(relaid(payload, dict(mutation.sections)) if mutation.sections else payload)
    for offset, value in mutation.writes:
        data[offset : offset + len(value)] = value
    if mutation.keep is not None:
        data[mutation.keep :] = bytes(len(data) - mutation.keep)
    if mutation.kind == CRAFTED and len(data) > CHECKSUMMED_FROM + 8:
        reseal(data, end=len(data))
    return bytes(data)


_DEVICES = (
    b"CPU\xff",
    b"\xff\xfeCPU",
    b"",
    b"AUTO:CPU,CPU",
    b"MULTI:CPU,CPU",
    b"HETERO:CPU,CPU",
    b"AUTO:CPU",
    b"MULTI:CPU",
    b"HETERO:CPU",
    b"AUTO",
    b"AUTO:",
    b"MULTI:",
    b"CPU,CPU",
    b"XPU",
    b"GPU",
    b"NPU",
    b"CPU.7",
    b"BATCH:CPU(4)",
    b"cpu",
    b"CPU" * 2000,
)
_KEYS = (
    b"INFERENCE_PRECISION_HINT",
    b"INFERENCE_NUM_THREADS",
    b"NUM_STREAMS",
    b"PERFORMANCE_HINT",
    b"ENABLE_CPU_PINNING",
    b"KV_CACHE_PRECISION",
    b"EXECUTION_MODE_HINT",
    b"DYNAMIC_QUANTIZATION_GROUP_SIZE",
    b"LP_TRANSFORMS_MODE",
    b"NOT_A_PROPERTY",
    b"\xff",
    b"",
    b"K" * 5000,
)
# No value here changes the precision the model computes in: outputs must stay close.
_VALUES = (
    b"\xff",
    b"",
    b"-1",
    b"0",
    b"1",
    b"99999999999999999999",
    b"f32",
    b"u8",
    b"YES",
    b"NO",
    b"LATENCY",
    b"THROUGHPUT",
    b"ACCURACY",
    b"V" * 5000,
)
_LETTERS = b"TSCX/"


def _options(sections: Mapping[str, bytes], generator: random.Random) -> tuple[str, bytes]:
    """The options with the device or one property replaced, or too many properties."""
    strings = sections["options"].split(b"\0")[:-1]
    choice = generator.randrange(4)
    if choice == 0:
        strings[0] = generator.choice(_DEVICES)
        what = f"device {strings[0][:24]!r}"
    elif choice == 3:
        strings += [b"NUM_STREAMS", b"1"] * 17
        what = "17 more properties"
    else:
        key, value = generator.choice(_KEYS), generator.choice(_VALUES)
        strings += [key, value]
        what = f"property {key[:24]!r}={value[:24]!r}"
    return what, b"".join(s + b"\0" for s in strings)


def _signature(sections: Mapping[str, bytes], generator: random.Random) -> tuple[str, bytes]:
    letters = bytearray(sections["signature"])
    choice = generator.randrange(4)
    if choice == 0 and len(letters) > 1:
        del letters[generator.randrange(len(letters))]
    elif choice == 1:
        letters.insert(generator.randrange(len(letters) + 1), generator.choice(_LETTERS))
    else:
        for _ in range(1 + generator.randrange(2)):
            letters[generator.randrange(len(letters))] = generator.choice(_LETTERS)
    return f"signature {bytes(letters)!r}", bytes(letters)


def _blob_strings(sections: Mapping[str, bytes], generator: random.Random) -> tuple[str, bytes]:
    version, name, data = sections["blob"].split(b"\0", 2)
    hostile = (b"\xff\xfe" + version, version + b"\xff", b"", b"\x80" * 40, version[:-1])
    if generator.random() < 0.5:
        version = generator.choice(hostile)
        what = f"blob version {version[:24]!r}"
    else:
        name = generator.choice((b"\xff\xfe" + name, name + b"\xff", b"", b"\xc3(" * 30, name[1:]))
        what = f"blob device name {name[:24]!r}"
    return what, version + b"\0" + name + b"\0" + data


def _nesting(sections: Mapping[str, bytes], generator: random.Random) -> tuple[str, bytes]:
    """The XML with elements the converter never writes in its ``<rt_info>``."""
    xml = sections["xml"]
    at = xml.rindex(b"</rt_info>")
    choice = generator.randrange(6)
    if choice < 3:
        depth = generator.choice((1, 8, 60, 120, 121, 122, 125, 200, 1000, 120_000))
        added = b"<n>" * depth + b"</n>" * depth
        what = f"rt_info nested {depth} deep"
    elif choice == 3:
        count = generator.choice((10, 1000, 50_000))
        added = b"<e/>" * count
        what = f"{count} flat elements in rt_info"
    else:
        added, what = generator.choice(
            (
                (b"<!-- c --><![CDATA[ x ]]><?pi x?>", "a comment, a CDATA section and a PI"),
                (b"<!--><e/>-->", "a comment opened by '<!-->'"),
                (b"<a></b>", "mismatched tags"),
                (b"<a x=1/>", "an unquoted attribute"),
                (b"<a", "an unclosed tag"),
            )
        )
        if generator.random() < 0.3:
            return "a DOCTYPE with nested entities", (
                b'<?xml version="1.0"?><!DOCTYPE net [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
                + xml[xml.index(b"<net") :]
            )
    return what, xml[:at] + added + xml[at:]


def mutations(payload: bytes, program: str, count: int, seed: int = 0) -> Iterator[Mutation]:
    """``count`` seeded mutations of ``payload``, the unmutated delegate of ``program``.

    One in four also runs through ``executorch.runtime``.
    """
    generator = random.Random(f"{program}:{seed}")
    sections = sections_of(payload)
    families = ["bytes"] * 8 + ["options"] * 3 + ["signature"] * 2 + ["flags", "nesting", "nesting"]
    if "blob" in sections:
        families += ["blob_strings"] * 2
    for index in range(count):
        family = generator.choice(families)
        base = Mutation(index, program, CRAFTED, family, "", same_model=True,
                        through_executorch=index % 4 == 1)  # fmt: skip
        if family == "bytes":
            yield _bytes_mutation(payload, sections, generator, base)
            continue
        if family == "flags":
            yield _flags_mutation(payload, generator, base)
            continue
        name, draw = {
            "options": ("options", _options),
            "signature": ("signature", _signature),
            "blob_strings": ("blob", _blob_strings),
            "nesting": ("xml", _nesting),
        }[family]
        what, section = draw(sections, generator)
        yield dataclasses.replace(base, what=what, sections=((name, section),))


def _flags_mutation(payload: bytes, generator: random.Random, base: Mutation) -> Mutation:
    """Unknown bits, or ``WIDE_INT8_WEIGHTS``, keeping the model.

    One in five also flips ``NAMED_WEIGHTS``, which makes the weights section mean
    other weights: another model.
    """
    (original,) = struct.unpack_from("<Q", payload, CHECKSUMMED_FROM)
    bits = generator.choice((4, 1 << 63, generator.getrandbits(64) | 4, WIDE_INT8_WEIGHTS))
    bits |= original & NAMED_WEIGHTS
    if generator.random() < 0.2:
        bits ^= NAMED_WEIGHTS
    writes = ((CHECKSUMMED_FROM, struct.pack("<Q", bits)),)
    same_model = not (bits ^ original) & NAMED_WEIGHTS
    return dataclasses.replace(base, what=f"flags {bits:#x}", writes=writes, same_model=same_model)


def _bytes_mutation(
    payload: bytes, sections: Mapping[str, bytes], generator: random.Random, base: Mutation
) -> Mutation:
    """A cut or a changed byte; the model changes, so a crafted one may compute otherwise."""
    base = dataclasses.replace(
        base, kind=CRAFTED if generator.random() < 0.25 else CORRUPT, same_model=False
    )
    choice = generator.randrange(6 if "blob" in sections else 5)
    if choice == 0:
        keep = generator.randrange(len(payload))
        return dataclasses.replace(base, what=f"cut to {keep} bytes", keep=keep)
    if choice == 1:
        offset = generator.randrange(8, HEADER_SIZE)
        size = generator.choice((1, 4, 8))
        value = generator.choice(
            (bytes(size), b"\xff" * size, generator.randbytes(size), b"\x80" * size)
        )
        return dataclasses.replace(
            base,
            what=f"header bytes at {offset}",
            writes=((offset, value),),
        )
    name = ("xml", "xml", "weights", "blob")[choice - 2]
    start, size = _layout(payload)[name]
    if size == 0:
        name, (start, size) = "xml", _layout(payload)["xml"]
    offset = start + generator.randrange(size)
    value = bytes([generator.choice((0x00, 0x22, 0x3C, 0x80, 0xEA, 0xFF, 0xC3, 0x41))])
    if name != "xml" or generator.random() < 0.3:
        value = bytes([payload[offset] ^ (1 << generator.randrange(8))])
    return dataclasses.replace(
        base,
        what=f"{name} byte at {offset}",
        writes=((offset, value),),
    )


__all__ = [
    "CORRUPT",
    "CRAFTED",
    "Mutation",
    "apply",
    "mutations",
    "relaid",
    "sections_of",
]
