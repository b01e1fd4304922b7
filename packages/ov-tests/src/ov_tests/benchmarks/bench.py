"""The benchmark: this backend beside OpenVINO itself, XNNPACK, eager and ExecuTorch's built-in backend.

For each model (a name from :data:`MODELS`, or a ``.pte``), in one process:

* **per call** (median, 10th and 90th percentile), the variants taking turns
  in blocks of calls (``interleaved_seconds``), so that the machine's changing
  load falls on every variant alike: this backend's ``.pte`` and OpenVINO's
  own ``convert_model`` and ``compile_model`` of the same exported program at
  each precision, ExecuTorch's XNNPACK backend, and ExecuTorch's built-in
  OpenVINO backend (its compiled blob, imported and run by OpenVINO as its
  runtime does) when its optional group is installed. Eager PyTorch is timed
  after the others: its OpenMP workers spin after each call and would slow
  whatever ran next;
* **loading**: the first load of a ``.pte`` with no model cache, a load
  from a warm model cache (``OV_EXECUTORCH_CACHE_DIR``), and for this backend
  the first load of the program lowered with ``compiled_blob=true`` (its blob
  imported); ``compile_model`` for OpenVINO itself; importing the blob for
  the built-in backend;
* **lowering**: its time, and the peak resident memory while it runs above
  the memory before it (Linux's ``VmHWM``, reset through ``/proc/self/clear_refs``).

Ratios are to OpenVINO itself at the same precision. It writes ``bench.md``
(a Markdown table per model) and ``bench.png`` (the medians, with the 10th to
90th percentile as error bars), and reports progress on standard error.

Run ``ov-executorch bench`` or ``python -m ov_tests.benchmarks.bench``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openvino as ov
import torch

from ov_runtime import compile_specs, load_program, lower
from ov_tests.benchmarks._timing import interleaved_seconds, percentiles_ms
from ov_tests.benchmarks.bench_command import add_arguments
from ov_tests.benchmarks.c_api import c_api_call

Inputs = tuple[Any, ...]
CACHE_VARIABLE = "OV_EXECUTORCH_CACHE_DIR"


def _mlp() -> tuple[torch.nn.Module, Inputs]:
    torch.manual_seed(0)
    layers: list[torch.nn.Module] = []
    for _ in range(4):
        layers += [torch.nn.Linear(1024, 1024), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).eval(), (torch.randn(64, 1024),)


def _encoder() -> tuple[torch.nn.Module, Inputs]:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True).eval()
    return layer, (torch.randn(1, 128, 256),)


def _linear8192() -> tuple[torch.nn.Module, Inputs]:
    torch.manual_seed(0)
    layers = [torch.nn.Linear(8192, 8192, bias=False) for _ in range(4)]
    return torch.nn.Sequential(*layers).eval(), (torch.randn(1, 8192),)


def _add() -> tuple[torch.nn.Module, Inputs]:
    from ov_tests.models import Add

    return Add(), (torch.randn(1, 8), torch.randn(1, 8))


def _resnet18() -> tuple[torch.nn.Module, Inputs]:
    from ov_tests.models import resnet18

    return resnet18()


def _minilm() -> tuple[torch.nn.Module, Inputs]:
    from ov_tests.models import SENTENCES, minilm

    return minilm(SENTENCES)


MODELS: dict[str, tuple[str, Callable[[], tuple[torch.nn.Module, Inputs]]]] = {
    "add": ("one add of two float32 (1, 8) tensors (per-call overhead)", _add),
    "mlp": ("MLP, 4 x Linear(1024, 1024) + ReLU, batch 64", _mlp),
    "encoder": ("TransformerEncoderLayer(256, 4 heads), 128 tokens", _encoder),
    "resnet18": ("ResNet-18 (seeded), 1 x 3 x 224 x 224", _resnet18),
    "minilm": ("all-MiniLM-L6-v2, five sentences", _minilm),
    "linear8192": (
        "4 x Linear(8192, 8192): 1 GiB of float32 weights (lowering memory)",
        _linear8192,
    ),
}
"""The models the benchmark knows by name: a description and a builder (model, inputs)."""


@dataclass
class Variant:
    """One way of running the model, and what was measured of it.

    Attributes:
        name: ``this backend``, ``OpenVINO``, ``XNNPACK``, ``built-in OpenVINO`` or ``eager``.
        precision: The inference precision asked for (``f32``, ``bf16``), or ``""``.
        call: One call on the inputs; None when the variant could not run.
        note: Why it could not run, or what to know of it.
        lowering_s: Seconds to lower (ExecuTorch backends).
        lowering_peak_mib: Peak resident memory while lowering, MiB above the start.
        first_load_ms: The first load (compile) in ms, with no model cache.
        cached_load_ms: A load from a warm model cache in ms (median of three).
        blob_load_ms: The first load, with no model cache, of the program
            lowered with a compiled blob (``compiled_blob=true``), in ms.
        times: Per-call times in seconds.
    """

    name: str
    precision: str = ""
    call: Callable[[], object] | None = None
    note: str = ""
    lowering_s: float | None = None
    lowering_peak_mib: float | None = None
    first_load_ms: float | None = None
    cached_load_ms: float | None = None
    blob_load_ms: float | None = None
    times: list[float] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The variant's name with its precision."""
        return f"{self.name} {self.precision}".strip()


def progress(text: str) -> None:
    """Report a step on standard error."""
    sys.stderr.write(f"bench: {text}\n")
    sys.stderr.flush()


def _resident_mib(field_name: str) -> float | None:
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) / 1024
    return None


@contextlib.contextmanager
def measured(variant: Variant) -> Iterator[None]:
    """Record the block's time as the variant's lowering time, and its peak memory above the start."""
    gc.collect()
    try:  # Linux resets the peak (VmHWM) to the current RSS when "5" is written here
        Path("/proc/self/clear_refs").write_text("5")
        start = _resident_mib("VmRSS")
    except OSError:
        start = None
    began = time.perf_counter()
    yield
    variant.lowering_s = time.perf_counter() - began
    peak = _resident_mib("VmHWM")
    if start is not None and peak is not None:
        variant.lowering_peak_mib = peak - start


def _milliseconds(work: Callable[[], object]) -> tuple[float, Any]:
    began = time.perf_counter()
    result = work()
    return (time.perf_counter() - began) * 1e3, result


@contextlib.contextmanager
def _cache_folder(folder: str) -> Iterator[None]:
    """Point this backend's default model cache at ``folder`` (``none``: no cache) for the block."""
    before = os.environ.get(CACHE_VARIABLE)
    os.environ[CACHE_VARIABLE] = folder
    try:
        yield
    finally:
        if before is None:
            del os.environ[CACHE_VARIABLE]
        else:
            os.environ[CACHE_VARIABLE] = before


def _loader(pte: bytes) -> Callable[[], Any]:
    """A load of ``pte``'s ``forward``, returning the program (which must outlive it) and the method."""

    def load() -> Any:
        program = load_program(pte)
        return program, program.load_method("forward")

    return load


def _pte_call(pte: bytes, inputs: Inputs, variant: Variant, cache: str | None) -> None:
    """Load ``pte`` cold, and from a warm cache in ``cache`` unless None; set the variant's call."""
    load = _loader(pte)

    with _cache_folder("none"):
        variant.first_load_ms, (program, method) = _milliseconds(load)
    if cache is not None:
        with _cache_folder(cache):
            load()  # fills the cache
            variant.cached_load_ms = statistics.median(_milliseconds(load)[0] for _ in range(3))
    arguments = list(inputs)

    def call() -> object:
        assert program is not None  # the method reads the program's data: keep it alive
        return method.execute(arguments)

    variant.call = call


def _this_backend(exported: Any, inputs: Inputs, precision: str, cache: str) -> Variant:
    variant = Variant("this backend", precision)
    with measured(variant):
        pte = lower(exported, compile_specs=compile_specs(inference_precision=precision)).buffer
    _pte_call(pte, inputs, variant, cache)
    specs = compile_specs(inference_precision=precision, compiled_blob=True)
    with_blob = lower(exported, compile_specs=specs).buffer
    with _cache_folder("none"):
        variant.blob_load_ms = _milliseconds(_loader(with_blob))[0]
    return variant


@functools.cache
def _core() -> ov.Core:
    """One OpenVINO core for the whole run, as this backend's runtime keeps one.

    Each new ``ov.Core`` sets its device plugins up again, which a load would pay.
    """
    return ov.Core()


def _openvino(exported: Any, inputs: Inputs, precision: str, cache: str) -> list[Variant]:
    """OpenVINO's own conversion, compiled and run through its Python API and through its C API."""
    variant = Variant("OpenVINO", precision, note="convert_model, reshaped to the inputs' shapes")
    core = _core()
    model = ov.convert_model(exported)
    # convert_model leaves every dimension dynamic; the program's shapes are static.
    model.reshape({index: list(value.shape) for index, value in enumerate(inputs)})
    config = {"INFERENCE_PRECISION_HINT": precision}
    variant.first_load_ms, compiled = _milliseconds(
        lambda: core.compile_model(model, "CPU", config)
    )
    cached = {**config, "CACHE_DIR": cache}
    core.compile_model(model, "CPU", cached)
    variant.cached_load_ms = statistics.median(
        _milliseconds(lambda: core.compile_model(model, "CPU", cached))[0] for _ in range(3)
    )
    request = compiled.create_infer_request()
    arrays = [value.numpy() for value in inputs]
    variant.call = functools.partial(request.infer, arrays, share_inputs=True)
    c_api = Variant("OpenVINO C API", precision, note="ov_infer_request_infer alone")
    c_api.call = c_api_call(model, arrays, config)
    return [variant, c_api]


def _xnnpack(exported: Any, inputs: Inputs) -> Variant:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    variant = Variant("XNNPACK", "f32")
    try:
        with measured(variant):
            edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
            pte = edge.to_executorch().buffer
    except Exception as error:  # a program XNNPACK cannot lower is a row, not an abort
        variant.note = f"does not lower: {type(error).__name__}"
        return variant
    _pte_call(pte, inputs, variant, None)  # XNNPACK has no model cache
    return variant


def _builtin_openvino(exported: Any, inputs: Inputs) -> Variant:
    """ExecuTorch's built-in OpenVINO backend: its blob imported and run as its runtime does."""
    variant = Variant("built-in OpenVINO", note="OpenVINO's default precision")
    try:
        from executorch.backends.openvino.partitioner import OpenvinoPartitioner
        from executorch.exir import to_edge_transform_and_lower
        from executorch.exir.backend.compile_spec_schema import CompileSpec
    except ImportError as error:
        variant.note = f"not installed ({error}); uv sync --group builtin-openvino"
        return variant
    with measured(variant):
        partitioner = OpenvinoPartitioner([CompileSpec("device", b"CPU")])
        edge = to_edge_transform_and_lower(exported, partitioner=[partitioner])
    graph_module = edge.exported_program().graph_module
    blobs = [module.processed_bytes for name, module in graph_module.named_children()]
    placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
    if len(blobs) != 1 or len(placeholders) != len(inputs):
        variant.note = f"{len(blobs)} delegates; timed only when one holds the whole model"
        return variant
    variant.first_load_ms, compiled = _milliseconds(
        lambda: _core().import_model(bytes(blobs[0]), "CPU")
    )
    variant.precision = compiled.get_property("INFERENCE_PRECISION_HINT").to_string()
    request = compiled.create_infer_request()
    variant.call = functools.partial(request.infer, [v.numpy() for v in inputs], share_inputs=True)
    return variant


def _eager(model: torch.nn.Module, inputs: Inputs) -> Variant:
    def call() -> object:
        with torch.no_grad():
            return model(*inputs)

    return Variant("eager", "f32", call=call)


def _warm_up_openvino() -> None:
    """Compile a one-op model first: the first compile in a process also loads the CPU plugin."""
    parameter = ov.opset13.parameter([1], ov.Type.f32)
    _core().compile_model(ov.Model([ov.opset13.relu(parameter)], [parameter]), "CPU")


def model_variants(
    model: torch.nn.Module, inputs: Inputs, precisions: Sequence[str], cache: str
) -> list[Variant]:
    """Build every variant of ``model`` (lowering, loading), eager last."""

    # A program of its own for each: ExecuTorch's lowering takes the constants
    # it moves into delegates out of the table the given program shares.
    def exported() -> Any:
        return torch.export.export(model, inputs)

    variants: list[Variant] = []
    for precision in precisions:
        progress(f"  OpenVINO {precision}: convert_model, compile_model")
        variants.extend(_openvino(exported(), inputs, precision, cache))
        progress(f"  this backend {precision}: lowering, loading")
        variants.append(_this_backend(exported(), inputs, precision, cache))
    progress("  XNNPACK: lowering, loading")
    variants.append(_xnnpack(exported(), inputs))
    progress("  built-in OpenVINO: lowering, importing")
    variants.append(_builtin_openvino(exported(), inputs))
    variants.append(_eager(model, inputs))
    return variants


def pte_variants(path: Path, cache: str) -> list[Variant]:
    """The one variant of a saved ``.pte``: its inputs are seeded values of the planned shapes."""
    pte = path.read_bytes()
    generator = torch.Generator().manual_seed(0)
    inputs: list[Any] = []
    for spec in load_program(pte).method_inputs("forward"):
        if spec.kind != "tensor" or spec.dtype is None:
            inputs.append(spec.value)
        elif spec.dtype.is_floating_point:
            inputs.append(torch.randn(spec.bounds, generator=generator).to(spec.dtype))
        else:
            inputs.append(torch.zeros(spec.bounds, dtype=spec.dtype))
    variant = Variant(path.name, note="inputs: seeded values of the planned shapes")
    _pte_call(pte, tuple(inputs), variant, cache)
    return [variant]


def time_variants(variants: Sequence[Variant], rounds: int, block: int) -> None:
    """Time the variants that run: interleaved, then eager alone (see the module's docstring)."""
    running = {v.label: v for v in variants if v.call is not None and v.name != "eager"}
    calls = {label: v.call for label, v in running.items() if v.call is not None}
    for label, times in interleaved_seconds(calls, rounds, block).items():
        running[label].times = times
    for variant in variants:
        if variant.name == "eager" and variant.call is not None:
            variant.times = interleaved_seconds({"eager": variant.call}, rounds, block)["eager"]


def _cell(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _medians(variants: Sequence[Variant], name: str) -> dict[str, float]:
    """The median per-call seconds of the variants called ``name``, by precision."""
    return {v.precision: statistics.median(v.times) for v in variants if v.name == name and v.times}


def table(title: str, variants: Sequence[Variant]) -> str:
    """A Markdown table of ``variants``.

    Per-call ratios are to OpenVINO's Python API, and the microseconds over
    its C API, each at the same precision.
    """
    python_api, c_api = _medians(variants, "OpenVINO"), _medians(variants, "OpenVINO C API")
    lines = [
        f"### {title}",
        "",
        "| variant | per call, median ms | p10-p90 ms | vs OpenVINO | over C API, µs "
        "| lowering s | lowering peak MiB | first load ms | cached load ms | blob load ms "
        "| note |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for v in variants:
        timing, ratio, over = ["", ""], "", ""
        if v.times:
            p10, p50, p90 = percentiles_ms(v.times)
            timing = [f"{p50:.3f}", f"{p10:.3f}-{p90:.3f}"]
            median = statistics.median(v.times)
            if v.precision in python_api:
                ratio = f"{median / python_api[v.precision]:.2f}"
            if v.precision in c_api:
                over = f"{(median - c_api[v.precision]) * 1e6:.1f}"
        cells = [
            v.label,
            *timing,
            ratio,
            over,
            _cell(v.lowering_s, 2),
            _cell(v.lowering_peak_mib, 0),
            _cell(v.first_load_ms, 1),
            _cell(v.cached_load_ms, 1),
            _cell(v.blob_load_ms, 1),
            v.note,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(results: dict[str, list[Variant]], path: Path) -> None:
    """Bar charts of the median per-call times, 10th to 90th percentile as error bars."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(
        len(results), 1, figsize=(8, 2.2 + 0.4 * 7 * len(results)), squeeze=False
    )
    for axis, (title, variants) in zip(axes[:, 0], results.items(), strict=True):
        timed = [v for v in variants if v.times]
        stats = [percentiles_ms(v.times) for v in timed]
        medians = [p50 for _, p50, _ in stats]
        errors = [[p50 - p10 for p10, p50, _ in stats], [p90 - p50 for _, p50, p90 in stats]]
        axis.barh([v.label for v in timed], medians, xerr=errors, color="tab:blue")
        axis.invert_yaxis()
        axis.set_title(title, fontsize=9)
        axis.set_xlabel("ms per call (median; 10th-90th percentile)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def run(
    targets: Sequence[str], precisions: Sequence[str], rounds: int, block: int, output: Path
) -> dict[str, list[Variant]]:
    """Measure each target (a model name or a ``.pte`` path); write ``bench.md`` and ``bench.png``.

    Raises:
        ValueError: A target is neither a known model nor an existing ``.pte``.
    """
    for target in targets:
        if target not in MODELS and not (target.endswith(".pte") and Path(target).is_file()):
            raise ValueError(
                f"{target!r} is neither a model of the benchmark ({', '.join(MODELS)}) "
                "nor an existing .pte file"
            )
    output.mkdir(parents=True, exist_ok=True)
    _warm_up_openvino()
    results: dict[str, list[Variant]] = {}
    with tempfile.TemporaryDirectory(prefix="ov_executorch_bench_") as cache:
        for index, target in enumerate(targets, 1):
            progress(f"[{index}/{len(targets)}] {target}")
            if target in MODELS:
                title, build = MODELS[target]
                model, inputs = build()
                variants = model_variants(model, inputs, precisions, cache)
            else:
                title, variants = target, pte_variants(Path(target), cache)
            progress(f"  timing: {rounds} rounds of {block} calls each")
            time_variants(variants, rounds, block)
            results[title] = variants
    markdown = "\n".join(table(title, variants) for title, variants in results.items())
    (output / "bench.md").write_text(markdown)
    plot(results, output / "bench.png")
    progress(f"wrote {output / 'bench.md'} and {output / 'bench.png'}")
    sys.stdout.write(markdown)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark from the command line; return the exit status."""
    parser = argparse.ArgumentParser(prog="bench", description=__doc__.split("\n", 1)[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    return command(args)


def command(args: argparse.Namespace) -> int:
    """Run the benchmark with parsed options (``ov-executorch bench``); 2 for a bad option."""
    precisions = [p for p in args.precisions.split(",") if p]
    if not precisions or any(p not in ("f32", "f16", "bf16") for p in precisions):
        sys.stderr.write(f"bench: --precisions takes f32, f16 or bf16, not {args.precisions!r}\n")
        return 2
    if args.rounds < 1 or args.block < 1:
        sys.stderr.write("bench: --rounds and --block take a positive number\n")
        return 2
    try:
        run(args.targets, precisions, args.rounds, args.block, args.output_dir)
    except ValueError as error:
        sys.stderr.write(f"bench: {error}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
