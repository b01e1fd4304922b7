"""Where a method's time goes: ExecuTorch's ETDump of its calls, read with ExecuTorch's Inspector.

A program loaded with ``enable_etdump=True`` records ExecuTorch's events
(``Method::execute``, ``DELEGATE_CALL``, each operator left on the CPU) and
this backend's: ``OpenVINO compile`` at load, ``OpenVINO infer`` per call, and,
where the compiled model counts time per layer (OpenVINO's ``PERF_COUNT``, the
``perf_count`` option), one event per executed OpenVINO layer named for the
layer, with ``"<layer type> <exec type>"`` as its metadata. :func:`read_etdump`
sums such a file up; :func:`profile_program` records one and sums it up.
"""

from __future__ import annotations

import statistics
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMPILE_EVENT = "OpenVINO compile"
INFER_EVENT = "OpenVINO infer"
"""The delegate's own events (``native/profiling.h``)."""
METHOD_EVENT = "Method::execute"
"""ExecuTorch's event around one call of a method."""


@dataclass(frozen=True)
class LayerTime:
    """One OpenVINO layer and its time.

    Attributes:
        name: The layer's name in the delegate's OpenVINO model.
        layer_type: OpenVINO's type of the executed layer (``FullyConnected``).
        exec_type: The kernel that ran it (``brgemm_avx512_FP32``).
        ms: Its time per inference in milliseconds, as OpenVINO reported it
            after the last call. OpenVINO's CPU plugin reports the mean over
            all inferences of the compiled model, in whole microseconds, so this
            is the mean over every call, the first (cold) one included.
    """

    name: str
    layer_type: str
    exec_type: str
    ms: float


@dataclass(frozen=True)
class Profile:
    """What an ETDump says of a method's calls.

    Attributes:
        calls: The calls recorded.
        call_ms: The median time of a call (``Method::execute``), in ms, over
            the calls after the first (over the one call when there is one).
        openvino_ms: The median time of a call spent in OpenVINO's inferences
            (every delegate's ``OpenVINO infer``), in ms, over the same calls.
        layers: OpenVINO's layers, slowest first; empty unless the program
            counted them (``perf_count``).
    """

    calls: int
    call_ms: float
    openvino_ms: float
    layers: list[LayerTime]

    @property
    def outside_share(self) -> float:
        """The share of a call spent outside OpenVINO's inferences (0 to 1)."""
        return max(0.0, 1.0 - self.openvino_ms / self.call_ms) if self.call_ms > 0 else 0.0

    def format(self, top: int = 10) -> str:
        """The profile as text: the call, OpenVINO's share, and the ``top`` slowest layers."""
        lines = [
            f"calls: {self.calls}; median call {self.call_ms:.3f} ms, of which OpenVINO's "
            f"inferences {self.openvino_ms:.3f} ms; outside OpenVINO: "
            f"{self.outside_share:.1%}",
        ]
        if not self.layers:
            lines.append("no per-layer counters: load with perf_count=true to record them")
            return "\n".join(lines)
        total = sum(layer.ms for layer in self.layers)
        lines.append(
            f"top {min(top, len(self.layers))} of {len(self.layers)} OpenVINO layers "
            "(OpenVINO's time per inference; the CPU plugin's mean over all calls):"
        )
        lines.append(f"{'ms':>9} {'share':>6}  {'type':<18} {'exec type':<24} layer")
        for layer in self.layers[:top]:
            share = layer.ms / total if total else 0.0
            lines.append(
                f"{layer.ms:9.3f} {share:6.1%}  {layer.layer_type:<18} {layer.exec_type:<24} "
                f"{layer.name}"
            )
        return "\n".join(lines)


def _warm(values: Sequence[float]) -> list[float]:
    """The values of the calls after the first, or the one value there is."""
    return list(values[1:]) if len(values) > 1 else list(values)


def _metadata_text(metadata: Any) -> str:
    item = metadata[-1] if isinstance(metadata, list) and metadata else metadata
    if isinstance(item, (bytes, bytearray)):
        return bytes(item).decode("utf-8", "replace")
    return str(item or "")


def read_etdump(path: str | Path) -> Profile:
    """Sum up an ETDump file that this backend's delegates logged to.

    Reads it with ExecuTorch's ``executorch.devtools.Inspector``.

    Raises:
        ValueError: The file holds no call of a method (``Method::execute``).
        OSError: The file cannot be read.
    """
    from executorch.devtools import Inspector  # the developer tools import only here

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no ETDump at {path}")
    with warnings.catch_warnings():
        # Said of every ETDump written without a debug buffer (tensor values), which is not read here.
        warnings.filterwarnings("ignore", message="Output Buffer not found")
        inspector = Inspector(etdump_path=str(path))
    method: list[float] = []
    inferences: list[list[float]] = []
    layers: list[LayerTime] = []
    for block in inspector.event_blocks:
        for event in block.events:
            times = list(event.perf_data.raw) if event.perf_data is not None else []
            if not times or event.name == COMPILE_EVENT:
                continue
            if event.name == METHOD_EVENT:
                method = times
            elif event.name == INFER_EVENT:
                inferences.append(times)
            elif event.is_delegated_op and (
                kinds := _metadata_text(event.delegate_debug_metadatas)
            ):
                layer_type, _, exec_type = kinds.partition(" ")
                layers.append(LayerTime(event.name, layer_type, exec_type, times[-1]))
    if not method:
        raise ValueError(f"{path} records no call of a method ({METHOD_EVENT!r})")
    per_call = [sum(times[i] for times in inferences if i < len(times)) for i in range(len(method))]
    return Profile(
        calls=len(method),
        call_ms=statistics.median(_warm(method)),
        openvino_ms=statistics.median(_warm(per_call)),
        layers=sorted(layers, key=lambda layer: layer.ms, reverse=True),
    )


def profile_program(
    pte: bytes | str | Path,
    inputs: Sequence[Any],
    method: str = "forward",
    calls: int = 50,
    etdump: str | Path | None = None,
) -> Profile:
    """Run ``method`` ``calls`` times with an ETDump and OpenVINO's per-layer counters; sum it up.

    The program loads with ``enable_etdump=True`` and the load-time option
    ``perf_count=true`` (OpenVINO's ``PERF_COUNT``), so its delegates compile
    with per-layer counters whatever it was lowered with.

    Args:
        pte: The program (bytes or a path).
        inputs: The method's inputs.
        method: The method to run.
        calls: How many calls to record (at least 1); OpenVINO's CPU plugin
            reports each layer's mean over all of them, so more calls dilute
            the first, cold one.
        etdump: Where to keep the ETDump; a temporary file when None.

    Raises:
        ValueError: ``calls`` is below 1.
        ExecutionError: The program does not load or run.
    """
    from ov_runtime.facade.running import load_program

    if calls < 1:
        raise ValueError(f"calls must be at least 1, not {calls}")
    program = load_program(pte, {"perf_count": True}, enable_etdump=True)
    loaded = program.load_method(method)
    for _ in range(calls):
        loaded.execute(inputs)
    if etdump is not None:
        program.write_etdump(etdump)
        return read_etdump(etdump)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "profile.etdp"
        program.write_etdump(path)
        return read_etdump(path)
