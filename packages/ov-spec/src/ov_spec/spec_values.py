"""Reading one compile spec value: the text ExecuTorch stores, turned into a typed value.

ExecuTorch keeps each compile spec value as UTF-8 bytes. Every key of
:class:`ov_spec.OpenvinoOptions` names here how its text reads (a
:data:`Reader`) and how its typed value is written back (:func:`as_text`), so
a value is parsed once, when the options are made, and every layer below reads
typed fields.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, TypeAlias

from ov_spec.exceptions import CompileSpecError

Reader: TypeAlias = Callable[[str, str], object]
"""Reads one key's text (``key``, ``text``) into its typed value, or raises CompileSpecError."""

NoCache: TypeAlias = Literal["none"]
NO_CACHE: NoCache = "none"
"""The ``cache_dir`` value (and ``OV_EXECUTORCH_CACHE_DIR`` value) that turns OpenVINO's model
cache off: the one spelling of "no cache" a user writes. The payload carries it as OpenVINO's
own, an empty ``CACHE_DIR``."""

_COUNT_LIMIT = 2**31  # OpenVINO keeps counts in a C int


def refused(key: str, text: str, expected: str) -> CompileSpecError:
    """The error for a value of ``key`` outside what it allows."""
    return CompileSpecError(f"compile spec {key!r} has the value {text!r}; expected {expected}")


def as_text(key: str, value: object, takes: tuple[type, ...] = ()) -> str:
    """The text a value is stored as: text as it is, ``True`` as ``true``, a path as its string.

    Args:
        key: The compile spec key, for the error.
        value: Text, or a value of one of the types in ``takes``.
        takes: The types besides ``str`` the key takes (``bool``, ``int``, ``os.PathLike``).

    Raises:
        CompileSpecError: ``value`` is of a type the key does not take.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, takes):
        if isinstance(value, bool):
            return "true" if value else "false"
        return os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    kinds = "".join(f", {kind.__name__}" for kind in takes)
    raise CompileSpecError(
        f"compile spec {key!r} has the value {value!r} of type {type(value).__name__}; values "
        f"are text{kinds and f' (or {kinds[2:]})'}"
    )


def text(_key: str, text: str) -> str:
    """A value taken as it is (the device string, checked on its own)."""
    return text


def choice(values: Sequence[str]) -> Reader:
    """A reader of one of ``values``, spelled exactly."""

    def read(key: str, text: str) -> str:
        if text not in values:
            raise refused(key, text, f"one of {', '.join(values)}")
        return text

    return read


def boolean(key: str, text: str) -> bool:
    """``true`` or ``false``."""
    if text not in ("true", "false"):
        raise refused(key, text, "true or false")
    return text == "true"


def count(*, minimum: int, expected: str) -> Reader:
    """A reader of a whole number (ASCII digits) from ``minimum`` to below 2**31."""

    def read(key: str, text: str) -> int:
        if not (text.isascii() and text.isdigit() and minimum <= int(text) < _COUNT_LIMIT):
            raise refused(key, text, expected)
        return int(text)

    return read


def streams(key: str, text: str) -> int | Literal["AUTO"]:
    """OpenVINO's ``NUM_STREAMS``: a positive count, or ``AUTO``."""
    if text == "AUTO":
        return "AUTO"
    if not (text.isascii() and text.isdigit() and 1 <= int(text) < _COUNT_LIMIT):
        raise refused(key, text, "a positive whole number below 2**31, such as '1', or AUTO")
    return int(text)


def cache_folder(key: str, text: str) -> Path | NoCache:
    """A folder for OpenVINO's model cache, or ``none``.

    A path that exists must be a folder; OpenVINO creates one that does not.
    """
    if text == NO_CACHE:
        return NO_CACHE
    if os.path.exists(text) and not os.path.isdir(text):
        raise CompileSpecError(
            f"compile spec {key!r} names {text!r}, which exists and is not a folder; give a "
            f"folder (OpenVINO creates it if it is missing), or {NO_CACHE!r}"
        )
    return Path(text)


# One device name, optionally with an index (GPU.1), optionally followed by a
# colon and a comma-separated priority list (AUTO:GPU,CPU; HETERO:GPU.0,CPU).
_DEVICE_NAME = r"[A-Z][A-Z0-9_]*(?:\.[0-9]+)?"
DEVICE_PATTERN = re.compile(rf"{_DEVICE_NAME}(?::{_DEVICE_NAME}(?:,{_DEVICE_NAME})*)?")
"""An OpenVINO device string (upper case, no spaces)."""
SINGLE_DEVICE = re.compile(rf"(?!(?:AUTO|HETERO|MULTI|BATCH)\b){_DEVICE_NAME}")
"""One device of one plugin: what OpenVINO's ``export_model`` and ``import_model`` take."""
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")


def runs_on_cpu_only(device: str) -> bool:
    """Whether every device an OpenVINO device string names is the CPU.

    ``CPU`` and ``AUTO:CPU`` do; ``AUTO`` (any device), ``GPU`` and
    ``HETERO:GPU,CPU`` do not.
    """
    names = device.split(":", 1)[1].split(",") if ":" in device else [device]
    return all(name.split(".", 1)[0] == "CPU" for name in names)


def repeated_device(device: str) -> str | None:
    """The first device that an OpenVINO device list names twice, or None.

    ``AUTO:CPU,CPU`` names ``CPU`` twice, and ``HETERO:GPU,GPU.0`` names the
    first GPU twice (``GPU`` is ``GPU.0``). OpenVINO accepts such lists, and
    ``AUTO:CPU,CPU`` and ``MULTI:CPU,CPU`` returned the first call's output
    shape for later calls of a dynamic program (OpenVINO 2026.4.1), so they
    are refused at lowering and by the runtime.
    """
    if ":" not in device:
        return None
    seen: set[str] = set()
    for name in device.split(":", 1)[1].split(","):
        plugin, _, index = name.partition(".")
        key = f"{plugin}.{index or '0'}"
        if key in seen:
            return name
        seen.add(key)
    return None
