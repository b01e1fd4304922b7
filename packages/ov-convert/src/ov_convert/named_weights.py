"""The weights of a program's delegates as one piece of ExecuTorch named data.

OpenVINO's C API reads a model from its XML and one buffer of weights
(``ov_core_read_model_from_memory_buffer``), whose ``Const`` layers each name
an offset and a size in it. So that delegates of several methods (a prefill
and a decode method, two variants of one model) store a weight once and read
it in place, preprocess lays every distinct constant of all the delegates it
lowers at once (ExecuTorch's ``preprocess_multimethod``) into one buffer, and
rewrites each IR's offsets into it. ExecuTorch stores that buffer once under
its content key, in the ``.pte`` or, for constants that ExecuTorch's
external-constants pass tagged, in a ``.ptd`` of that tag; each payload
names it (``ov_convert.payload.NamedWeights``). The buffer is a file until
ExecuTorch writes the program (its ``FileBackedData``), so lowering holds no
copy of the weights in memory for it.
"""

from __future__ import annotations

import contextlib
import mmap
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import xxhash
from torch.export import ExportedProgram

from ov_convert.exceptions import ConversionError
from ov_convert.payload import NamedWeights
from ov_spec import BACKEND_ID

ALIGNMENT = 64
"""Each constant of this many bytes or more starts at a multiple of it, as the IR's weights do."""
EXTERNAL_TAG = "delegate_constant_tag"
"""The key of ``node.meta["custom"]`` where ExecuTorch's external-constants pass
(``delegate_external_constants_pass_unlifted``) names the data file of a constant."""


def pool_weights(
    irs: Sequence[tuple[bytes, Path]], pool: BinaryIO
) -> tuple[list[bytes], NamedWeights | None]:
    """Write the constants of several IRs into ``pool``, each distinct one once.

    ``pool`` is written from its start, one constant at a time, so the weights
    are never in memory twice (a file keeps lowering's peak memory down), and
    hashed as they are written.

    Args:
        irs: Each IR's XML and the path of its weights (``.bin``).
        pool: Where the pooled weights go (a binary file, empty).

    Returns:
        Each XML with its ``Const`` layers' offsets into the pool (those of
        ``If`` and ``Loop`` bodies too), and the reference to the pool: its
        key (the backend id and its XXH3-128, so equal weights share a key),
        size and XXH3-64; None when the IRs hold no weights.

    Raises:
        ConversionError: A ``Const`` layer names bytes outside its weights.
    """
    key, checksum = xxhash.xxh3_128(), xxhash.xxh3_64()
    size = 0
    placed: dict[tuple[int, bytes], int] = {}
    xmls = []

    def write(data: bytes) -> None:
        nonlocal size
        pool.write(data)
        key.update(data)
        checksum.update(data)
        size += len(data)

    for xml, weights_path in irs:
        root = ElementTree.fromstring(xml)
        with _mapped(weights_path) as weights:
            for data in _constants(root):
                offset, length = int(data.attrib["offset"]), int(data.attrib["size"])
                if offset + length > len(weights):
                    raise ConversionError(
                        f"a Const layer of the IR names bytes [{offset}, +{length}) of weights "
                        f"of {len(weights)} bytes"
                    )
                chunk = weights[offset : offset + length]
                digest = (length, xxhash.xxh3_128_digest(chunk))
                if digest not in placed:
                    write(bytes(-size % ALIGNMENT if length >= ALIGNMENT else 0))
                    placed[digest] = size
                    write(chunk)
                data.set("offset", str(placed[digest]))
        xmls.append(ElementTree.tostring(root, encoding="utf-8", xml_declaration=True))
    reference = NamedWeights(f"{BACKEND_ID}.weights.{key.hexdigest()}", size, checksum.intdigest())
    return xmls, reference if size else None


def external_tag(programs: Iterable[ExportedProgram]) -> str | None:
    """The data file the partitions' constants are tagged for, or None for the ``.pte``.

    The delegates' weights are one piece of named data, so when some constants
    are tagged and others not, all of them go to the tagged file.

    Raises:
        ConversionError: The constants name more than one data file: the
            delegates' weights are one piece of named data, so they go to one.
    """
    tags = {
        tag
        for program in programs
        for node in program.graph.nodes
        if node.op == "placeholder"
        and (tag := node.meta.get("custom", {}).get(EXTERNAL_TAG)) is not None
    }
    if len(tags) > 1:
        raise ConversionError(
            f"the constants of the delegates lowered together name the data files "
            f"{sorted(tags)}; this backend writes their weights to one: tag them with one name"
        )
    return next(iter(tags), None)


def _constants(root: ElementTree.Element) -> Iterable[ElementTree.Element]:
    """The ``data`` element of each ``Const`` layer that reads the weights, bodies' included."""
    for layer in root.iter("layer"):
        data = layer.find("data") if layer.get("type") == "Const" else None
        if data is not None and "offset" in data.attrib and "size" in data.attrib:
            yield data


@contextlib.contextmanager
def _mapped(path: Path) -> Iterator[mmap.mmap | bytes]:
    """A weights file mapped read-only, so each constant is read alone rather than the file whole."""
    if path.stat().st_size == 0:  # mmap maps no empty file
        yield b""
        return
    with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        yield mapped
