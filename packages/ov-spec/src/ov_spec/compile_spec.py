"""Parse, validate and build the compile specs of the OpenVINO backend.

ExecuTorch passes compile specs as a list of entries with a ``str`` key and a
``bytes`` value, the same list at lowering (``BackendDetails.preprocess``) and
at loading (the native ``init``). Both sides read it with the same rules:

* when a key is given more than once, the last entry wins;
* an empty value means the key's default;
* values are UTF-8.

Keys:

==========================  ==============================  =========================
key                         values                          default
==========================  ==============================  =========================
``device``                  an OpenVINO device string:      ``CPU``
                            ``CPU``, ``GPU``, ``GPU.1``,
                            ``NPU``, ``AUTO:GPU,CPU``
``inference_precision``     ``f32``, ``f16``, ``bf16``      ``f32`` when the device
                                                            string names only the CPU;
                                                            OpenVINO's own elsewhere
``cache_dir``               a folder for OpenVINO's model   none (no cache)
                            cache
==========================  ==============================  =========================
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from ov_spec.exceptions import CompileSpecError

DEVICE = "device"
INFERENCE_PRECISION = "inference_precision"
CACHE_DIR = "cache_dir"
KNOWN_KEYS = (DEVICE, INFERENCE_PRECISION, CACHE_DIR)

DEFAULT_DEVICE = "CPU"
PRECISIONS = ("f32", "f16", "bf16")
CPU_DEFAULT_PRECISION = "f32"
"""OpenVINO's CPU plugin picks bf16 on x86 CPUs with bf16 units and f16 on ARM
unless told otherwise, so a float32 program asks for f32 on ``CPU``."""

# One device name, optionally with an index (GPU.1), optionally followed by a
# colon and a comma-separated priority list (AUTO:GPU,CPU; HETERO:GPU.0,CPU).
_DEVICE_NAME = r"[A-Z][A-Z0-9_]*(?:\.[0-9]+)?"
_DEVICE_PATTERN = re.compile(rf"{_DEVICE_NAME}(?::{_DEVICE_NAME}(?:,{_DEVICE_NAME})*)?")


def runs_on_cpu_only(device: str) -> bool:
    """Whether every device an OpenVINO device string names is the CPU.

    ``CPU`` and ``AUTO:CPU`` do; ``AUTO`` (any device), ``GPU`` and
    ``HETERO:GPU,CPU`` do not. The native runtime applies the same rule.
    """
    names = device.split(":", 1)[1].split(",") if ":" in device else [device]
    return all(name.split(".", 1)[0] == "CPU" for name in names)


class CompileSpecLike(Protocol):
    """What ExecuTorch's ``CompileSpec`` offers: a ``str`` key and a ``bytes`` value."""

    @property
    def key(self) -> str:
        """The spec key."""
        ...

    @property
    def value(self) -> bytes:
        """The spec value, UTF-8 encoded."""
        ...


def _unknown_key(key: str) -> CompileSpecError:
    return CompileSpecError(
        f"unknown compile spec key {key!r}; known keys: {', '.join(KNOWN_KEYS)}"
    )


@dataclass(frozen=True)
class OpenvinoOptions:
    """The validated compile specs of one delegate.

    Attributes:
        device: OpenVINO device the delegate is compiled for when it loads.
        inference_precision: ``f32``, ``f16`` or ``bf16``; ``None`` keeps the
            default (``f32`` on ``CPU``, OpenVINO's own on other devices).
        cache_dir: Folder for OpenVINO's model cache; ``None`` for no cache.
            A second load of the same program with a cache is faster.
    """

    device: str = DEFAULT_DEVICE
    inference_precision: str | None = None
    cache_dir: str | None = None

    def __post_init__(self) -> None:
        """Validate every field.

        Raises:
            CompileSpecError: A field holds a value OpenVINO would not accept.
        """
        if not _DEVICE_PATTERN.fullmatch(self.device):
            raise CompileSpecError(
                f"compile spec {DEVICE!r} has the value {self.device!r}; expected an OpenVINO "
                "device string such as 'CPU', 'GPU', 'GPU.1', 'NPU' or 'AUTO:GPU,CPU' "
                "(upper case, no spaces)"
            )
        if self.inference_precision is not None and self.inference_precision not in PRECISIONS:
            raise CompileSpecError(
                f"compile spec {INFERENCE_PRECISION!r} has the value "
                f"{self.inference_precision!r}; expected one of {', '.join(PRECISIONS)}"
            )
        if self.cache_dir is not None and "\0" in self.cache_dir:
            raise CompileSpecError(f"compile spec {CACHE_DIR!r} holds a NUL character")

    @property
    def effective_precision(self) -> str | None:
        """The precision OpenVINO is asked for.

        The explicit one; else ``f32`` when every device the string names is
        the CPU (``CPU``, ``AUTO:CPU``, ``HETERO:CPU``); else None, leaving
        OpenVINO's default (a bare ``AUTO`` may still pick the CPU and bf16).
        """
        if self.inference_precision is not None:
            return self.inference_precision
        return CPU_DEFAULT_PRECISION if runs_on_cpu_only(self.device) else None

    @classmethod
    def from_compile_specs(cls, specs: Iterable[CompileSpecLike]) -> OpenvinoOptions:
        """Parse a list of ExecuTorch compile specs.

        Args:
            specs: Entries with a ``key`` (``str``) and a ``value`` (``bytes``).
                The last entry of a key wins; an empty value means the default.

        Returns:
            The validated options.

        Raises:
            CompileSpecError: An unknown key, a value that is not UTF-8, or a
                value outside what the key allows.
        """
        values: dict[str, str] = {}
        for spec in specs:
            if spec.key not in KNOWN_KEYS:
                raise _unknown_key(spec.key)
            try:
                values[spec.key] = bytes(spec.value).decode("utf-8")
            except UnicodeDecodeError as error:
                raise CompileSpecError(
                    f"compile spec {spec.key!r} has a value that is not UTF-8: {bytes(spec.value)!r}"
                ) from error
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: Mapping[str, str]) -> OpenvinoOptions:
        """Build options from key/value strings; an empty string means the default.

        Raises:
            CompileSpecError: An unknown key or a bad value.
        """
        for key in values:
            if key not in KNOWN_KEYS:
                raise _unknown_key(key)
        return cls(
            device=values.get(DEVICE) or DEFAULT_DEVICE,
            inference_precision=values.get(INFERENCE_PRECISION) or None,
            cache_dir=values.get(CACHE_DIR) or None,
        )

    def to_entries(self) -> list[tuple[str, bytes]]:
        """Return ``(key, UTF-8 value)`` pairs for ExecuTorch's ``CompileSpec``; unset keys are left out."""
        entries = [(DEVICE, self.device)]
        if self.inference_precision is not None:
            entries.append((INFERENCE_PRECISION, self.inference_precision))
        if self.cache_dir is not None:
            entries.append((CACHE_DIR, self.cache_dir))
        return [(key, value.encode("utf-8")) for key, value in entries]
