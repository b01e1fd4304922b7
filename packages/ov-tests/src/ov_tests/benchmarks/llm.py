"""A decoder-only LLM on this backend against OpenVINO itself, openvino.genai and XNNPACK.

The model has SmolLM2-360M's configuration (32 layers, width 960, 15 heads
with 5 key-value heads, vocabulary 49152, the embedding tied to the output
layer) with seeded weights, exported once per configuration through
transformers' ExecuTorch integration with a static cache. Configurations
(``--configs``), weights and inference precision:

- ``float32/f32``;
- ``int8/f32`` and ``int8/bf16``: torchao's ``IntxWeightOnlyConfig`` int8 per
  output channel for every linear layer and the embedding (per row), as
  NNCF's int8 weight compression does;
- ``int4/bf16``: int4 in groups of ``--group`` (64) for the linear layers,
  the embedding and the tied output layer int8 per row, as NNCF's int4 mode
  keeps them by default;
- ``8da4w/f32`` and ``8da4w/bf16``: the scheme of ExecuTorch's XNNPACK LLM
  recipe, torchao's ``Int8DynamicActivationIntxWeightConfig``: int4 weights
  in groups of ``--group`` for every linear layer, the output layer included
  (so the embedding stays float32, no longer tied), and activations
  quantized to int8 per token at run time. XNNPACK lowers this scheme, so
  it is the quantized comparison with XNNPACK on the same export.

Measured side by side in one run:

- the prefill of a 128-token prompt (for genai its time to the first token)
  and the median time of a one-token decode step, with tokens per second,
  for this backend's ``.pte``, for OpenVINO running the very IR this backend
  hands it (compiled with the same properties, the cache kept in the infer
  request's state, no ExecuTorch in between), for openvino.genai's
  ``LLMPipeline`` with its SDPA attention backend on that IR made its
  interface (:mod:`ov_tests.benchmarks.genai`; when the workspace's ``genai``
  group is installed), and for XNNPACK's ``.pte`` of the same export: all
  loaded in one process, taking turns for ``--rounds`` rounds, each figure
  the median over the rounds;
- for each variant that gives logits, the largest absolute difference of
  the prompt's logits from the model's own, computed eagerly with no cache
  (genai gives tokens alone);
- each variant's peak RSS, loading it and generating 8 tokens in a process
  of its own, above that process's once its libraries are imported;
- the ``.pte``'s size, and for int8 and int4 weights the size of NNCF's
  compressed IR of the same weights in the same format
  (:mod:`ov_tests.benchmarks.nncf_size`; when ``nncf`` is installed);
- for the float32 configuration: the bytes a decode step moves between
  ExecuTorch and the delegates (:func:`ov_tests.llm.decode_step_bytes`), at
  two cache lengths; the peak RSS of lowering the exported program and
  serializing the ``.pte``, above the RSS when lowering starts, against the
  weights' size, and of the whole process that builds, exports and lowers
  the model, above what its libraries take; the RSS while this backend
  generates, after 16 tokens and at the end; the prefill of a second prompt
  on the program already loaded (no reload), against the first prompt's.

``--dynamic-quantization GROUP`` gives this backend the compile spec
``dynamic_quantization_group_size``: OpenVINO's CPU plugin then quantizes
the activations of layers with int8 or int4 weights to int8 in groups of
``GROUP`` at run time (none at f32 by default, OpenVINO's own 32 at bf16).

OpenVINO's ``convert_model`` of the exported program is no comparison: it
takes the cache buffers for constants and drops their updates.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from queue import Empty
from typing import Any

import numpy as np
import openvino as ov
import torch

from ov_runtime import compile_specs, generate, load_program, lower
from ov_runtime.facade.inspection import delegate_models
from ov_tests.benchmarks._timing import report
from ov_tests.benchmarks.genai import GenaiPipeline, genai_available, genai_model
from ov_tests.benchmarks.nncf_size import nncf_available, nncf_ir_bytes
from ov_tests.llm import decode_step_bytes, export_decoder

PROMPT = 128
SMOLLM2_360M: dict[str, Any] = {
    "vocab_size": 49152,
    "hidden_size": 960,
    "intermediate_size": 2560,
    "num_hidden_layers": 32,
    "num_attention_heads": 15,
    "num_key_value_heads": 5,
    "max_position_embeddings": 8192,
    "rope_theta": 100000.0,
    "tie_word_embeddings": True,
}
CONFIGURATIONS = ("float32/f32", "int8/f32", "int8/bf16", "int4/bf16", "8da4w/f32", "8da4w/bf16")
"""Weights and inference precision, as ``--configs`` names them."""

Call = Callable[[torch.Tensor, torch.Tensor], object]


def _model(layers: int, weights: str = "float32", group: int = 64) -> Any:
    """The seeded model, its weights quantized as :data:`CONFIGURATIONS` describes."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(**{**SMOLLM2_360M, "num_hidden_layers": layers})
    torch.manual_seed(0)
    model: Any = LlamaForCausalLM(config)
    model.eval()
    if weights == "8da4w":
        from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
        from torchao.quantization.granularity import PerGroup

        dynamic = Int8DynamicActivationIntxWeightConfig(
            weight_dtype=torch.int4,  # type: ignore[attr-defined]
            weight_granularity=PerGroup(group),
        )
        quantize_(model, dynamic, filter_fn=lambda module, _: isinstance(module, torch.nn.Linear))
    elif weights != "float32":
        from torchao.quantization import IntxWeightOnlyConfig, quantize_
        from torchao.quantization.granularity import PerAxis, PerGroup

        per_row = IntxWeightOnlyConfig(weight_dtype=torch.int8, granularity=PerAxis(0))
        grouped = IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(group))  # type: ignore[attr-defined]
        inner = grouped if weights == "int4" else per_row
        quantize_(model, inner, filter_fn=lambda module, name: _is_linear(module, name, inner=True))
        # The tied embedding and output layer alike, per row: the same int8 values
        # and scales, stored once (the .pte keeps each distinct constant once).
        quantize_(
            model, per_row, filter_fn=lambda module, name: _is_linear(module, name, inner=False)
        )
    return model


def _is_linear(module: torch.nn.Module, name: str, inner: bool) -> bool:
    """A linear layer inside the decoder (``inner``), or else the embedding or the output layer."""
    if inner:
        return isinstance(module, torch.nn.Linear) and name != "lm_head"
    return isinstance(module, torch.nn.Embedding) or name == "lm_head"


def _weights_bytes(model: torch.nn.Module) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def _peak_rss_bytes() -> int:
    """The RSS high-water mark since the process started or :func:`_reset_peak_rss` (Linux)."""
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024


def _reset_peak_rss() -> None:
    """Set the RSS high-water mark to the current RSS (Linux's ``clear_refs``, value 5)."""
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


def _prompt() -> tuple[torch.Tensor, torch.Tensor]:
    """The benchmark's prompt: ``input_ids`` ``[1, PROMPT]`` and ``cache_position`` ``[PROMPT]``."""
    return torch.arange(1, PROMPT + 1).reshape(1, PROMPT), torch.arange(PROMPT)


def _eager_logits(model: Any) -> np.ndarray:
    """The prompt's logits ``[1, PROMPT, vocabulary]`` from ``model`` itself, eagerly and with no cache."""
    with torch.no_grad():
        logits: torch.Tensor = model(input_ids=_prompt()[0], use_cache=False).logits
    return logits.float().numpy()


def _lower_in_child(
    layers: int,
    cache: int,
    configuration: tuple[str, str, int],
    dynamic_quantization: int | None,
    path: Path,
    queue: Any,
) -> None:
    """This backend's ``.pte`` at ``path``, and eager's prompt logits at ``path`` ``.npy``."""
    imported = _rss_bytes()  # torch, ExecuTorch and OpenVINO loaded, no model yet
    weights, precision, group = configuration
    model = _model(layers, weights, group)
    exported = export_decoder(model, max_cache_len=cache, max_prompt=PROMPT)
    whole = _peak_rss_bytes()
    _reset_peak_rss()
    start = _rss_bytes()
    specs = compile_specs(
        inference_precision=precision, dynamic_quantization_group_size=dynamic_quantization
    )
    path.write_bytes(lower(exported, compile_specs=specs).buffer)
    lowering = _peak_rss_bytes() - start
    peak = max(whole, _peak_rss_bytes()) - imported
    np.save(path.with_suffix(".npy"), _eager_logits(model))
    queue.put((lowering, peak, _weights_bytes(model)))


def _nncf_in_child(layers: int, configuration: tuple[str, str, int], queue: Any) -> None:
    """The bytes of NNCF's IR of the same seeded weights in the configuration's weight format."""
    weights, _, group = configuration
    queue.put(nncf_ir_bytes(_model(layers), weights, group))


def _in_child(target: Callable[..., None], *args: Any) -> Any:
    """Run ``target(*args, queue)`` in a fresh process; return what it put on the queue.

    Raises:
        RuntimeError: The process ended without putting anything there.
    """
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=target, args=(*args, queue))
    child.start()
    while True:
        try:
            result = queue.get(timeout=5)
            break
        except Empty:
            if not child.is_alive():
                message = f"{target.__name__} ended with exit code {child.exitcode}"
                raise RuntimeError(message) from None
    child.join()
    return result


def _steps(call: Call, tokens: int) -> list[float]:
    """Prefill ``PROMPT`` tokens, then ``tokens`` one-token steps; the prefill time, then each step's."""
    start = time.perf_counter()
    call(*_prompt())
    times = [time.perf_counter() - start]
    for position in range(PROMPT, PROMPT + tokens):
        start = time.perf_counter()
        call(torch.tensor([[position % 1000]]), torch.tensor([position]))
        times.append(time.perf_counter() - start)
    return times


def _executorch(pte: Path) -> Call:
    method = load_program(pte).load_method()
    return lambda ids, positions: method.execute([ids, positions])[-1]


def _openvino(pte: Path) -> Call:
    """The IR of the ``.pte``'s one delegate, compiled and run by OpenVINO alone.

    The delegate takes ``input_ids``, ``cache_position`` and then the int64
    counters ExecuTorch keeps (transformers' ``cumulative_length``), and gives
    the counters' new values before the logits; here they go round in numpy.
    A call at position 0 starts a new sequence on the request's initial state.
    """
    ((payload, model),) = delegate_models(pte)
    compiled = ov.Core().compile_model(model, payload.device, dict(payload.properties))
    request = compiled.create_infer_request()
    counters = [np.zeros((), np.int64) for _ in model.inputs[2:]]

    def call(ids: torch.Tensor, positions: torch.Tensor) -> object:
        if int(positions[0]) == 0:  # a new sequence, as this backend's runtime starts one
            request.reset_state()
            counters[:] = [np.zeros((), np.int64) for _ in counters]
        outputs = request.infer([ids.numpy(), positions.numpy(), *counters])
        counters[:] = [outputs[index].copy() for index in range(len(counters))]
        return outputs[len(counters)]

    return call


def _lower_xnnpack_in_child(
    layers: int, cache: int, configuration: tuple[str, str, int], path: Path, queue: Any
) -> None:
    """XNNPACK's ``.pte`` of the same export at ``path``; puts None, or why it does not lower."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    weights, _, group = configuration
    try:
        model = _model(layers, weights, group)
        exported = export_decoder(model, max_cache_len=cache, max_prompt=PROMPT)
        edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
        path.write_bytes(edge.to_executorch().buffer)
    except Exception as error:
        queue.put(f"does not lower: {type(error).__name__}: {str(error)[:200]}")
        return
    queue.put(None)


Run = Callable[[], tuple[float, float]]
"""One prompt and its decode steps: the prefill's seconds and the median decode step's."""


def _runner(variant: str, pte: Path, tokens: int, folder: Path) -> tuple[Run, Call | None]:
    """Load ``variant`` (its ``.pte``, or for genai this backend's IR in ``folder``).

    Returns:
        Its run, and the call that gives its logits (``None`` for genai, which
        gives tokens alone).
    """
    if variant == "genai":
        ((payload, model),) = delegate_models(pte)
        xml = folder / "openvino_model.xml"
        ov.save_model(genai_model(model, payload.inputs), xml, compress_to_fp16=False)
        del model
        pipeline = GenaiPipeline(folder, payload.properties)

        def generate() -> tuple[float, float]:
            _, first, per_token = pipeline.generate(PROMPT, tokens)
            return first, per_token

        return generate, None
    call = _openvino(pte) if variant == "openvino" else _executorch(pte)

    def steps() -> tuple[float, float]:
        times = _steps(call, tokens)
        return times[0], statistics.median(times[1:])

    return steps, call


def _prefill_error(call: Call, reference: np.ndarray) -> float:
    """The largest absolute difference of the prompt's logits from ``reference`` (eager's)."""
    logits = np.asarray(call(*_prompt()), dtype=np.float32)
    return float(np.abs(logits.reshape(reference.shape) - reference).max())


def _timed_in_child(
    ptes: dict[str, Path], reference: Path, tokens: int, rounds: int, queue: Any
) -> None:
    """Time every variant in one process, taking turns: each variant's runs, one per round.

    Turns spread the machine's changing load over every variant alike, so
    their ratios hold where runs in separate processes would drift. Puts the
    times and each variant's :func:`_prefill_error` against the logits saved
    at ``reference``.
    """
    logits = np.load(reference)
    with tempfile.TemporaryDirectory() as folder:
        loaded = {
            variant: _runner(variant, pte, tokens, Path(folder)) for variant, pte in ptes.items()
        }
        errors = {
            variant: _prefill_error(call, logits)
            for variant, (_, call) in loaded.items()
            if call is not None
        }
        runs = {variant: run for variant, (run, _) in loaded.items()}
        for run in runs.values():
            run()  # warm-up: the first calls compile OpenVINO's kernels for their shapes
        times: dict[str, list[tuple[float, float]]] = {variant: [] for variant in runs}
        for _ in range(rounds):
            for variant, run in runs.items():
                times[variant].append(run())
    queue.put((times, errors))


def _peak_in_child(variant: str, pte: Path, queue: Any) -> None:
    """The peak RSS of loading ``variant`` and generating 8 tokens, above the RSS with its libraries."""
    imported = _rss_bytes()
    _reset_peak_rss()
    with tempfile.TemporaryDirectory() as folder:
        _runner(variant, pte, 8, Path(folder))[0]()
    queue.put(_peak_rss_bytes() - imported)


VARIANTS = {
    "genai": "openvino.genai (same IR, SDPA)",
    "openvino": "OpenVINO (same IR, stateful)",
    "backend": "this backend (.pte)",
    "xnnpack": "ExecuTorch XNNPACK (.pte)",
}


def _float32_extras(pte: Path, lowering: int, whole: int, weights: int, tokens: int) -> None:
    """Memory of lowering, bytes a decode step moves, RSS while generating, a second prompt."""
    report(
        f"weights {weights / 2**20:.0f} MiB; peak RSS of lowering and serializing, above the "
        f"RSS with the exported program in hand, {lowering / 2**20:.0f} MiB "
        f"({lowering / weights:.2f}x the weights); of build + export + lower, above the "
        f"libraries', {whole / 2**20:.0f} MiB ({whole / weights:.2f}x)"
    )
    small = lower(export_decoder(_model(1), max_cache_len=64, max_prompt=PROMPT))
    large = lower(export_decoder(_model(1), max_cache_len=1024, max_prompt=PROMPT))
    report(
        "bytes a decode step moves between ExecuTorch and OpenVINO (1 layer): "
        f"{decode_step_bytes(small.program.exported_program())} at cache 64, "
        f"{decode_step_bytes(large.program.exported_program())} at cache 1024"
    )
    rss = []
    loaded = load_program(pte)
    result = generate(
        loaded,
        list(range(1, PROMPT + 1)),
        tokens,
        progress=lambda done, _: rss.append(_rss_bytes()),
    )
    report(
        f"RSS while generating {tokens} tokens: {rss[min(15, tokens - 1)] / 2**20:.0f} MiB after "
        f"{min(16, tokens)}, {rss[-1] / 2**20:.0f} MiB at the end, {max(rss) / 2**20:.0f} MiB at "
        f"most ({result.decode_tokens_per_second:.2f} tokens/s)"
    )
    second = generate(loaded, list(range(PROMPT + 1, 2 * PROMPT + 1)), 2)
    report(
        f"prefill of {PROMPT} tokens on one loaded program: the first prompt "
        f"{result.prefill_seconds * 1e3:.1f} ms, a second one "
        f"{second.prefill_seconds * 1e3:.1f} ms, with no reload"
    )


def main() -> None:
    """Measure and print a table per configuration; ratios are to the first row's."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--layers", type=int, default=32, help="fewer for a quick run")
    parser.add_argument("--tokens", type=int, default=128, help="decode steps after the prompt")
    parser.add_argument(
        "--configs", default=",".join(CONFIGURATIONS), help=f"of {', '.join(CONFIGURATIONS)}"
    )
    parser.add_argument("--group", type=int, default=64, help="int4 group size (32, 64 or 128)")
    parser.add_argument("--rounds", type=int, default=3, help="turns each variant takes")
    parser.add_argument("--no-xnnpack", action="store_true")
    parser.add_argument(
        "--dynamic-quantization",
        type=int,
        metavar="GROUP",
        help="this backend's compile spec dynamic_quantization_group_size (0 for none); "
        "the default leaves it to the backend (none at f32, OpenVINO's own at bf16)",
    )
    args = parser.parse_args()
    cache = PROMPT + args.tokens + 16
    configurations = args.configs.split(",")
    if unknown := set(configurations) - set(CONFIGURATIONS):
        parser.error(f"unknown configurations {sorted(unknown)}; expected some of {CONFIGURATIONS}")
    variants = [v for v in VARIANTS if v != "xnnpack" and (v != "genai" or genai_available())]
    if not genai_available():
        report("openvino.genai is not installed (uv run --group genai ...): no genai row")
    if not nncf_available():
        report("nncf is not installed (uv run --group builtin-openvino ...): no NNCF sizes")

    with tempfile.TemporaryDirectory() as folder:
        for name in configurations:
            weights, precision = name.split("/")
            configuration = (weights, precision, args.group)
            pte = Path(folder) / "llm.pte"
            lowering, whole, weights_bytes = _in_child(
                _lower_in_child, args.layers, cache, configuration, args.dynamic_quantization, pte
            )
            report(
                f"\nSmolLM2-360M configuration, {args.layers} layers, {weights} weights"
                f"{f' (int4 groups of {args.group})' if weights in ('int4', '8da4w') else ''}, inference "
                f"precision {precision}"
                f"{f', dynamic quantization {args.dynamic_quantization}' if args.dynamic_quantization is not None else ''}"
                f", cache of {cache} positions; .pte "
                f"{pte.stat().st_size / 2**20:.0f} MiB"
            )
            if weights == "float32":  # torchao's quantized tensors do not count their bytes
                _float32_extras(pte, lowering, whole, weights_bytes, args.tokens)
            elif nncf_available() and weights != "8da4w":
                nncf = _in_child(_nncf_in_child, args.layers, configuration)
                report(
                    f"NNCF's IR of the same weights in the same format: {nncf / 2**20:.0f} MiB; "
                    f"the .pte is {pte.stat().st_size / nncf:.3f}x"
                )
            ptes = {variant: pte for variant in variants if variant != "xnnpack"}
            refusals = {}
            if not args.no_xnnpack:
                xnnpack = Path(folder) / "xnnpack.pte"
                refusal = _in_child(
                    _lower_xnnpack_in_child, args.layers, cache, configuration, xnnpack
                )
                if refusal is None:
                    ptes["xnnpack"] = xnnpack
                else:
                    refusals["xnnpack"] = refusal
            times, errors = _in_child(
                _timed_in_child, ptes, pte.with_suffix(".npy"), args.tokens, args.rounds
            )
            peaks = {
                variant: _in_child(_peak_in_child, variant, path) for variant, path in ptes.items()
            }
            _report_table(times, errors, peaks, refusals)


def _report_table(
    times: dict[str, list[tuple[float, float]]],
    errors: dict[str, float],
    peaks: dict[str, int],
    refusals: dict[str, str],
) -> None:
    """A row per variant: medians over the rounds, with ratios to the first row's.

    The logits' error is the largest absolute difference of the prompt's
    logits from eager's (the model itself, no cache); genai gives no logits.
    """
    header = (
        f"{'prefill 128 ms':>15} {'ratio':>6} {'decode ms/token':>16} {'tokens/s':>9} "
        f"{'ratio':>6} {'peak RSS MiB':>13} {'logits max |error|':>19}"
    )
    report(f"{'':32} {header}")
    baseline: tuple[float, float] | None = None
    for variant, runs in times.items():
        prefill = statistics.median(run[0] for run in runs)
        decode = statistics.median(run[1] for run in runs)
        baseline = baseline or (prefill, decode)
        report(
            f"{VARIANTS[variant]:32} {prefill * 1e3:15.1f} {prefill / baseline[0]:6.2f} "
            f"{decode * 1e3:16.2f} {1 / decode:9.2f} {decode / baseline[1]:6.2f} "
            f"{peaks[variant] / 2**20:13.0f} "
            f"{f'{errors[variant]:.2e}' if variant in errors else '-':>19}"
        )
    for variant, refusal in refusals.items():
        report(f"{VARIANTS[variant]:32} {refusal}")


if __name__ == "__main__":
    main()
