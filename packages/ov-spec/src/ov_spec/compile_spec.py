"""Parse, validate and resolve the compile specs of the OpenVINO backend.

ExecuTorch passes compile specs as a list of entries with a ``str`` key and a
``bytes`` value. They are read here and only here, with these rules:

* when a key is given more than once, the last entry wins;
* an empty value means the key's default;
* values are UTF-8 text without control characters.

Each value is parsed once, into a typed field of :class:`OpenvinoOptions`
(a bool, a count, one of a key's values, a path), which every layer below
reads. :meth:`OpenvinoOptions.properties` resolves them into the final
OpenVINO properties for the device, which preprocess writes into the delegate
payload; the native runtime compiles with those properties as they are, plus
what only the machine that loads the program knows (the default cache folder,
and whether its CPU's int8 products are exact: see ``ov_runtime.compile_properties``).
A new key is a new field of :class:`OpenvinoOptions` (made with :func:`_key`,
naming how its text reads) and its property in ``properties``.

Each key is described once, in its field's metadata (``values``, ``default``,
``about``): :data:`KEY_HELP` gives command lines their help from it, and
``python -m ov_spec.spec_table`` writes the reference table of the docs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias

from ov_spec import spec_values
from ov_spec.exceptions import CompileSpecError
from ov_spec.spec_values import (
    CONTROL_CHARACTER,
    DEVICE_PATTERN,
    NO_CACHE,
    SINGLE_DEVICE,
    NoCache,
    Reader,
    repeated_device,
    runs_on_cpu_only,
)

DEVICE = "device"
INFERENCE_PRECISION = "inference_precision"
CACHE_DIR = "cache_dir"
INFERENCE_NUM_THREADS = "inference_num_threads"
ENABLE_CPU_PINNING = "enable_cpu_pinning"
DYNAMIC_QUANTIZATION_GROUP_SIZE = "dynamic_quantization_group_size"
ALLOW_INT64_NARROWING = "allow_int64_narrowing"
PERFORMANCE_HINT = "performance_hint"
NUM_STREAMS = "num_streams"
KV_CACHE_PRECISION = "kv_cache_precision"
COMPILED_BLOB = "compiled_blob"

Precision: TypeAlias = Literal["f32", "f16", "bf16"]
PRECISIONS: tuple[Precision, ...] = ("f32", "f16", "bf16")
"""The values of OpenVINO's ``INFERENCE_PRECISION_HINT`` this backend takes."""
PerformanceHint: TypeAlias = Literal["LATENCY", "THROUGHPUT", "CUMULATIVE_THROUGHPUT"]
PERFORMANCE_HINTS: tuple[PerformanceHint, ...] = ("LATENCY", "THROUGHPUT", "CUMULATIVE_THROUGHPUT")
"""The values of OpenVINO's ``PERFORMANCE_HINT`` property."""
KvCachePrecision: TypeAlias = Literal["f32", "f16", "bf16", "u8", "u4"]
KV_CACHE_PRECISIONS: tuple[KvCachePrecision, ...] = ("f32", "f16", "bf16", "u8", "u4")
"""The element types OpenVINO's CPU plugin takes for ``KV_CACHE_PRECISION``
(2026.4 refused ``i8``)."""

_PRECISION = spec_values.choice(PRECISIONS)
_PERFORMANCE_HINT = spec_values.choice(PERFORMANCE_HINTS)
_KV_CACHE_PRECISION = spec_values.choice(KV_CACHE_PRECISIONS)
_THREADS = spec_values.count(minimum=1, expected="a positive whole number below 2**31, such as '1'")
_GROUP_SIZE = spec_values.count(
    minimum=0, expected="a whole number below 2**31, such as '32', or '0' for none"
)
_FOLDER = (os.PathLike,)

DEFAULT_DEVICE = "CPU"
CPU_DEFAULT_PRECISION: Precision = "f32"
"""OpenVINO's CPU plugin picks bf16 on x86 CPUs with bf16 units and f16 on ARM
unless told otherwise, so a float32 program asks for f32 on ``CPU``."""


def _key(
    *,
    values: str,
    default: str,
    about: str,
    read: Reader,
    takes: tuple[type, ...] = (),
    value: str | None = None,
    openvino: str | None = None,
) -> Any:
    """Declare a compile spec key: a dataclass field whose metadata describes it.

    Args:
        values: The values the key takes (Markdown).
        default: What an unset key means (Markdown).
        about: What the key does, and the OpenVINO property it sets (Markdown).
        read: Reads the key's text into the field's typed value (:mod:`ov_spec.spec_values`).
        takes: The types besides text a caller may give the key (``bool``, ``int``, a path).
        openvino: The OpenVINO property the key sets, if any; such a key is also a
            load-time option (:func:`runtime_options`).
        value: The field's default; ``None`` means "unset".
    """
    metadata = {
        "values": values,
        "default": default,
        "about": about,
        "read": read,
        "takes": takes,
        "openvino": openvino,
    }
    return field(default=value, metadata=metadata)


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


@dataclass(frozen=True)
class OpenvinoOptions:
    """The validated compile specs of one delegate; each field is one compile spec key.

    A field holds the key's typed value (``True``, ``4``, ``"bf16"``, a
    ``Path``), or ``None`` for its default; the field's metadata says what the
    key does, the values it takes and its default (:data:`KEY_DOCS`, and the
    table in the docs generated from it). The constructor also takes each
    value as the text ExecuTorch stores (``"true"``, ``"4"``), and reads it
    into its type, so ``OpenvinoOptions(compiled_blob="true").compiled_blob``
    is ``True``.

    Raises:
        CompileSpecError: A field holds a value OpenVINO would not accept; the
            message names the key, the value and what is allowed.
    """

    device: str = _key(
        values="an OpenVINO device string: `CPU`, `GPU`, `GPU.1`, `NPU`, `AUTO:GPU,CPU`",
        default="`CPU`",
        about="The OpenVINO device the delegate is compiled for when the program loads. "
        "Lowering needs no device, so a device the lowering machine lacks is refused only "
        "when the program loads (with `compiled_blob=true`, while lowering).",
        read=spec_values.text,
        value=DEFAULT_DEVICE,
    )
    inference_precision: Precision | None = _key(
        values="`f32`, `f16`, `bf16`",
        default="`f32` when the device string names only the CPU (`CPU`, `AUTO:CPU`); "
        "OpenVINO's own elsewhere",
        about="OpenVINO's `INFERENCE_PRECISION_HINT`. OpenVINO's CPU plugin picks bf16 on x86 "
        "CPUs with bf16 units and f16 on ARM unless told otherwise, so a float32 program asks "
        "for `f32` on the CPU; `bf16` is about twice as fast on CPUs with bf16 units, with two "
        "to three significant digits.",
        read=_PRECISION,
        openvino="INFERENCE_PRECISION_HINT",
    )
    cache_dir: Path | NoCache | None = _key(
        values="a folder for OpenVINO's model cache, or `none` for no cache",
        default="chosen where the program loads: `$OV_EXECUTORCH_CACHE_DIR` (`none` turns it "
        "off), else `$XDG_CACHE_HOME/ov_executorch`, else `~/.cache/ov_executorch`",
        about="OpenVINO's `CACHE_DIR`: a later load of the same delegate, in any process, "
        "imports the model compiled by the first instead of compiling it. A folder that "
        "cannot be written means no cache (logged), never a failed load; one that exists must "
        "be a folder.",
        read=spec_values.cache_folder,
        takes=_FOLDER,
        openvino="CACHE_DIR",
    )
    inference_num_threads: int | None = _key(
        values="a positive whole number below 2**31",
        default="OpenVINO's own (all cores)",
        about="OpenVINO's `INFERENCE_NUM_THREADS`: the threads one inference runs on. One "
        "thread each lets programs that run in parallel (one per Python thread) share the "
        "cores without contending.",
        read=_THREADS,
        takes=(int,),
        openvino="INFERENCE_NUM_THREADS",
    )
    enable_cpu_pinning: bool | None = _key(
        values="`true`, `false`",
        default="OpenVINO's own (pinned on Linux)",
        about="OpenVINO's `ENABLE_CPU_PINNING`: whether the CPU plugin pins its threads to "
        "cores. Programs that run in parallel in one process, each on one thread, are pinned "
        "to the same core unless this is `false`.",
        read=spec_values.boolean,
        takes=(bool,),
        openvino="ENABLE_CPU_PINNING",
    )
    dynamic_quantization_group_size: int | None = _key(
        values="a whole number below 2**31; `0` for none",
        default="`0` on the CPU at `f32` precision; OpenVINO's own (32) elsewhere",
        about="OpenVINO's `DYNAMIC_QUANTIZATION_GROUP_SIZE`: for layers with compressed (int8 "
        "or int4) weights, the CPU plugin quantizes the activations to int8 at run time in "
        "groups of this many values, trading about 1e-2 of error for speed (6e-3 on a "
        "weight-only int8 MLP), so float32 results ask for `0`. A model whose activations are "
        "already quantized per token (torchao's 8da4w) gains most: `64` prefills its LLM 1.9x "
        "faster at `f32` "
        "([quantization](quantization.md#torchaos-dynamically-quantized-activations-8da4w)).",
        read=_GROUP_SIZE,
        takes=(int,),
        openvino="DYNAMIC_QUANTIZATION_GROUP_SIZE",
    )
    allow_int64_narrowing: bool | None = _key(
        values="`true`, `false`",
        default="`false`: such nodes stay on ExecuTorch's CPU kernels",
        about="Whether the partitioner delegates int64 work whose values it cannot prove to "
        "fit in 32 bits. OpenVINO's CPU plugin computes int64 in 32 bits, so `true` is faster "
        "where such nodes sit between delegated ones, and wraps values past the int32 range. "
        "Read by the partitioner only.",
        read=spec_values.boolean,
        takes=(bool,),
    )
    performance_hint: PerformanceHint | None = _key(
        values="`LATENCY`, `THROUGHPUT`, `CUMULATIVE_THROUGHPUT`",
        default="OpenVINO's own (`LATENCY` on the CPU)",
        about="OpenVINO's `PERFORMANCE_HINT`. ExecuTorch calls a method one inference at a "
        "time, which `LATENCY` serves.",
        read=_PERFORMANCE_HINT,
        openvino="PERFORMANCE_HINT",
    )
    num_streams: int | Literal["AUTO"] | None = _key(
        values="a positive whole number below 2**31, or `AUTO`",
        default="what the performance hint implies",
        about="OpenVINO's `NUM_STREAMS`: how many inferences the compiled model runs at once.",
        read=spec_values.streams,
        takes=(int,),
        openvino="NUM_STREAMS",
    )
    kv_cache_precision: KvCachePrecision | None = _key(
        values="`f32`, `f16`, `bf16`, `u8`, `u4`",
        default="the inference precision for a cache OpenVINO keeps itself (OpenVINO's own "
        "default, u8 or f16 on the CPU, would move the logits)",
        about="OpenVINO's `KV_CACHE_PRECISION`: the element type the CPU plugin keeps the "
        "key/value cache of an attention block in (2026.4 refuses `i8`). It applies to the "
        "caches OpenVINO recognizes itself (its `ScaledDotProductAttention` over a state that "
        "grows), which an LLM's static cache becomes where its positions are a tensor input "
        "(transformers' export; see the LLM guide).",
        read=_KV_CACHE_PRECISION,
        openvino="KV_CACHE_PRECISION",
    )
    perf_count: bool | None = _key(
        values="`true`, `false`",
        default="`false`",
        about="OpenVINO's `PERF_COUNT`: whether the compiled model counts time per layer. A "
        "method loaded with an ETDump event tracer (`enable_etdump=True`) then logs each layer "
        "OpenVINO executed as a delegate event, named for the layer, with its type and exec type "
        "(`FullyConnected brgemm_avx512_FP32`); `ov-executorch profile` sets it at load.",
        read=spec_values.boolean,
        takes=(bool,),
        openvino="PERF_COUNT",
    )
    compiled_blob: bool | None = _key(
        values="`true`, `false`",
        default="`false`: the payload carries the IR alone",
        about="Whether preprocess also compiles the model for `device` on the lowering machine "
        "and stores OpenVINO's exported blob beside the IR. The runtime imports it when its "
        "OpenVINO version and device name equal those it was made with, and compiles the IR "
        "otherwise. It needs one device of one plugin (`CPU`, `GPU.0`; not `AUTO`, `HETERO`, "
        "`MULTI` or `BATCH`) present when lowering, and adds about the weights' size to the "
        "payload. Read by preprocess only.",
        read=spec_values.boolean,
        takes=(bool,),
    )

    def __post_init__(self) -> None:
        for option in fields(self):
            value = getattr(self, option.name)
            if value is None:
                continue
            text = spec_values.as_text(option.name, value, option.metadata["takes"])
            if CONTROL_CHARACTER.search(text):
                raise CompileSpecError(
                    f"compile spec {option.name!r} has the value {text!r}, which holds a "
                    "control character; values are printable text"
                )
            # A frozen dataclass sets its own fields only through object.__setattr__.
            object.__setattr__(self, option.name, option.metadata["read"](option.name, text))
        self._check_device()

    def _check_device(self) -> None:
        """Check the device string, and that a compiled blob is asked for one device."""
        if not DEVICE_PATTERN.fullmatch(self.device):
            raise CompileSpecError(
                f"compile spec {DEVICE!r} has the value {self.device!r}; expected an OpenVINO "
                "device string such as 'CPU', 'GPU', 'GPU.1', 'NPU' or 'AUTO:GPU,CPU' "
                "(upper case, no spaces)"
            )
        if (repeated := repeated_device(self.device)) is not None:
            raise CompileSpecError(
                f"compile spec {DEVICE!r} has the value {self.device!r}, which names the device "
                f"{repeated!r} twice; name each device once ('AUTO:GPU,CPU')"
            )
        if self.compiled_blob and not SINGLE_DEVICE.fullmatch(self.device):
            raise CompileSpecError(
                f"compile spec {COMPILED_BLOB!r} is true for the device {self.device!r}; a "
                "compiled blob is made for one device, such as 'CPU' or 'GPU.0' (not AUTO, "
                "HETERO, MULTI or BATCH)"
            )

    @property
    def effective_precision(self) -> Precision | None:
        """The precision OpenVINO is asked for.

        The explicit one; else ``f32`` when every device the string names is
        the CPU (``CPU``, ``AUTO:CPU``, ``HETERO:CPU``); else None, leaving
        OpenVINO's default (a bare ``AUTO`` may still pick the CPU and bf16).
        """
        if self.inference_precision is not None:
            return self.inference_precision
        return CPU_DEFAULT_PRECISION if runs_on_cpu_only(self.device) else None

    def properties(self, fused_kv_cache: bool = False) -> dict[str, str]:
        """The OpenVINO properties the delegate is compiled with on :attr:`device`.

        Keys and values are those of OpenVINO's ``compile_model``
        (``INFERENCE_PRECISION_HINT``, ``CACHE_DIR``), one per key that names
        its property (the field's ``openvino`` metadata); the native runtime
        passes every one of them to ``ov_core_compile_model``. A switch is
        ``YES`` or ``NO``, and ``cache_dir=none`` is OpenVINO's own "no cache",
        an empty ``CACHE_DIR``.

        Args:
            fused_kv_cache: The model holds a KV cache OpenVINO's attention
                keeps itself. Its precision then defaults to the inference
                precision: OpenVINO's own default (u8 or f16 on the CPU)
                would move the logits.
        """
        properties: dict[str, str] = {}
        for option in fields(self):
            key = option.name
            name, value = option.metadata["openvino"], self._resolved(key)
            if key == KV_CACHE_PRECISION and value is None and fused_kv_cache:
                value = self.effective_precision
            if name is not None and value is not None:
                properties[name] = _property_text(value)
        return properties

    def _resolved(self, key: str) -> object:
        """The value a key gives OpenVINO: its own, or this backend's default for it."""
        if key == INFERENCE_PRECISION:
            return self.effective_precision
        if key == DYNAMIC_QUANTIZATION_GROUP_SIZE and self.dynamic_quantization_group_size is None:
            # OpenVINO's default quantizes activations: not float32 results.
            f32_on_cpu = self.effective_precision == "f32" and runs_on_cpu_only(self.device)
            return 0 if f32_on_cpu else None
        return getattr(self, key)

    @classmethod
    def from_compile_specs(cls, specs: Iterable[CompileSpecLike]) -> OpenvinoOptions:
        """Parse a list of ExecuTorch compile specs.

        Args:
            specs: Entries with a ``key`` (``str``) and a ``value`` (UTF-8
                ``bytes``, or ``str``). The last entry of a key wins; an empty
                value means the default.

        Returns:
            The validated options.

        Raises:
            CompileSpecError: An unknown key, a value that is not UTF-8 text,
                or a value outside what the key allows.
        """
        if isinstance(specs, (str, bytes, Mapping)):
            raise CompileSpecError(
                f"compile specs are a list of ExecuTorch CompileSpec entries; got a "
                f"{type(specs).__name__} (build them with compile_specs(...))"
            )
        values: dict[str, str] = {}
        for spec in specs:
            key, value = getattr(spec, "key", None), getattr(spec, "value", None)
            if not isinstance(key, str):
                raise CompileSpecError(
                    f"a compile spec entry is a {type(spec).__name__}; entries are ExecuTorch "
                    "CompileSpec objects with a str key and a bytes value"
                )
            values[key] = _text(key, value)
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> OpenvinoOptions:
        """Build options from key/value pairs; ``None`` or an empty string means the default.

        A value is text, or the key's typed value (a bool, a whole number, a path).

        Raises:
            CompileSpecError: An unknown key or a bad value.
        """
        for key in values:
            if key not in KNOWN_KEYS:
                raise CompileSpecError(
                    f"unknown compile spec key {key!r}; known keys: {', '.join(KNOWN_KEYS)}"
                )
        given: dict[str, Any] = {k: v for k, v in values.items() if v not in (None, "")}
        return cls(**given)  # each value is read into its type, or refused, in __post_init__

    def to_entries(self) -> list[tuple[str, bytes]]:
        """Return ``(key, UTF-8 value)`` pairs for ExecuTorch's ``CompileSpec``; unset keys are left out."""
        return [
            (option.name, spec_values.as_text(option.name, value, (object,)).encode("utf-8"))
            for option in fields(self)
            if (value := getattr(self, option.name)) is not None
        ]


KNOWN_KEYS: tuple[str, ...] = tuple(option.name for option in fields(OpenvinoOptions))
"""The compile spec keys, in the order of :class:`OpenvinoOptions`' fields."""

KEY_DOCS: Mapping[str, Mapping[str, str]] = {
    option.name: {part: option.metadata[part] for part in ("values", "default", "about")}
    for option in fields(OpenvinoOptions)
}
"""Each compile spec key's description: ``values``, ``default`` and ``about`` (Markdown)."""

KEY_HELP: Mapping[str, str] = {
    key: f"{doc['values']} (default: {doc['default']})".replace("`", "")
    for key, doc in KEY_DOCS.items()
}
"""Each compile spec key's values and default, as plain text for a command line's help."""


def _property_text(value: object) -> str:
    """A typed value as OpenVINO reads its property: a switch as ``YES``/``NO``, no cache as ``""``."""
    if isinstance(value, bool):
        return "YES" if value else "NO"
    return "" if value == NO_CACHE else str(value)


def runtime_options(values: Mapping[str, object]) -> dict[str, str]:
    """Load-time backend options as the native runtime takes them, checked first.

    A key is either a compile spec key that sets something at load (``device``,
    or one with an OpenVINO property, such as ``inference_precision``), read and
    checked as at lowering and given as its property (``INFERENCE_PRECISION_HINT``),
    or an OpenVINO property name in upper case (``PERFORMANCE_HINT``), passed on
    as it is for OpenVINO to check when the delegate compiles. Each overrides the
    payload's value (ExecuTorch's ``LoadBackendOptionsMap`` for this backend's
    id, read by the native runtime through ``BackendInitContext::runtime_specs``).

    Args:
        values: Keys and values: text, or the key's typed value (a bool, a
            whole number, a path); for a property name, text, a bool (``YES``
            or ``NO``) or a whole number.

    Returns:
        ``{"device" or property name: text}``.

    Raises:
        CompileSpecError: An unknown key, a compile spec key read at lowering
            only (``compiled_blob``, ``allow_int64_narrowing``), or a bad value.
    """
    options: dict[str, str] = {}
    for key, value in values.items():
        if key == DEVICE:
            options[DEVICE] = OpenvinoOptions(device=str(spec_values.as_text(key, value))).device
        elif key in KNOWN_KEYS:
            option = next(item for item in fields(OpenvinoOptions) if item.name == key)
            name = option.metadata["openvino"]
            if name is None:
                raise CompileSpecError(
                    f"compile spec {key!r} is read at lowering only, not when a program loads; "
                    "lower the program again to change it"
                )
            options[name] = OpenvinoOptions.from_mapping({key: value}).properties()[name]
        elif _PROPERTY_NAME.fullmatch(key):
            boolean = isinstance(value, bool)
            options[key] = (
                _property_text(value) if boolean else spec_values.as_text(key, value, (int,))
            )
        else:
            raise CompileSpecError(
                f"unknown load-time option {key!r}; give {DEVICE!r}, a compile spec key with an "
                f"OpenVINO property ({', '.join(k for k in KNOWN_KEYS if _sets_property(k))}), "
                "or an OpenVINO property name in upper case (INFERENCE_PRECISION_HINT)"
            )
    return options


_PROPERTY_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def _sets_property(key: str) -> bool:
    return any(item.name == key and item.metadata["openvino"] for item in fields(OpenvinoOptions))


def _text(key: str, value: object) -> str:
    if isinstance(value, str):
        return value
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise CompileSpecError(
            f"compile spec {key!r} has a value of type {type(value).__name__}; values are "
            "UTF-8 bytes (or str)"
        )
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError as error:
        raise CompileSpecError(
            f"compile spec {key!r} has a value that is not UTF-8: {bytes(value)!r}"
        ) from error
