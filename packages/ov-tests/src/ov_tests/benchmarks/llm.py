"""A decoder-only LLM on this backend against OpenVINO itself and ExecuTorch's XNNPACK backend.

The model has SmolLM2-360M's configuration (32 layers, width 960, 15 heads
with 5 key-value heads, vocabulary 49152) with seeded weights, in float32,
exported once through transformers' ExecuTorch integration with a static
cache. Measured side by side in one run:

- prefill of a 128-token prompt and the median time of a one-token decode
  step, for this backend's ``.pte``, for OpenVINO running the very IR this
  backend hands it (compiled with the same properties, the cache kept in
  the infer request's state, no ExecuTorch in between), and for XNNPACK's
  ``.pte`` of the same export;
- the bytes a decode step moves between ExecuTorch and the delegates
  (:func:`ov_tests.llm.decode_step_bytes`), at two cache lengths;
- the peak RSS of lowering the exported program and serializing the
  ``.pte``, above the RSS when lowering starts (the model and its exported
  program held), against the weights' size; and, for the whole picture, the
  peak RSS of the process that builds, exports and lowers the model, above
  what its libraries take;
- the RSS while this backend generates, after 16 tokens and at the end;
- the prefill of a second prompt on the program already loaded (no reload), against
  the first prompt's.

OpenVINO's ``convert_model`` of the exported program is no comparison: it
takes the cache buffers for constants and drops their updates.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import openvino as ov
import torch

from ov_runtime import generate, load_program, lower
from ov_runtime.facade.inspection import delegate_models
from ov_tests.benchmarks._timing import report
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


def _model(layers: int) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(**{**SMOLLM2_360M, "num_hidden_layers": layers})
    torch.manual_seed(0)
    model: Any = LlamaForCausalLM(config)
    return model.eval()


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


def _lower_in_child(layers: int, cache: int, queue: Any) -> None:
    imported = _rss_bytes()  # torch, ExecuTorch and OpenVINO loaded, no model yet
    model = _model(layers)
    exported = export_decoder(model, max_cache_len=cache, max_prompt=PROMPT)
    whole = _peak_rss_bytes()
    _reset_peak_rss()
    start = _rss_bytes()
    pte = lower(exported).buffer
    lowering = _peak_rss_bytes() - start
    queue.put((pte, lowering, max(whole, _peak_rss_bytes()) - imported, _weights_bytes(model)))


def _lowering_peak(layers: int, cache: int) -> tuple[bytes, int, int, int]:
    """Build, export and lower in a fresh process.

    Returns:
        The ``.pte``; the peak RSS of lowering and serializing it (``lower``,
        then ``.buffer``) above the RSS when lowering started, with the model
        and its exported program held; the process's peak RSS above what it
        held once its libraries were imported; and the weights' bytes.
    """
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_lower_in_child, args=(layers, cache, queue))
    child.start()
    result: tuple[bytes, int, int, int] = queue.get()
    child.join()
    return result


def _steps(call: Callable[[torch.Tensor, torch.Tensor], object], tokens: int) -> list[float]:
    """Prefill ``PROMPT`` tokens, then ``tokens`` one-token steps; the prefill time, then each step's."""
    prompt = torch.arange(1, PROMPT + 1).reshape(1, PROMPT)
    start = time.perf_counter()
    call(prompt, torch.arange(PROMPT))
    times = [time.perf_counter() - start]
    for position in range(PROMPT, PROMPT + tokens):
        start = time.perf_counter()
        call(torch.tensor([[position % 1000]]), torch.tensor([position]))
        times.append(time.perf_counter() - start)
    return times


def _executorch(pte: bytes) -> Callable[[torch.Tensor, torch.Tensor], object]:
    method = load_program(pte).load_method()
    return lambda ids, positions: method.execute([ids, positions])


def _openvino(pte: bytes) -> Callable[[torch.Tensor, torch.Tensor], object]:
    """The IR of the ``.pte``'s one delegate, compiled and run by OpenVINO alone.

    The delegate takes ``input_ids``, ``cache_position`` and then the int64
    counters ExecuTorch keeps (transformers' ``cumulative_length``), and gives
    the counters' new values before the logits; here they go round in numpy.
    """
    ((payload, model),) = delegate_models(pte)
    compiled = ov.Core().compile_model(model, payload.device, dict(payload.properties))
    request = compiled.create_infer_request()
    counters = [np.zeros((), np.int64) for _ in model.inputs[2:]]

    def call(ids: torch.Tensor, positions: torch.Tensor) -> object:
        outputs = request.infer([ids.numpy(), positions.numpy(), *counters])
        counters[:] = [outputs[index].copy() for index in range(len(counters))]
        return outputs[len(counters)]

    return call


def _xnnpack(layers: int, cache: int) -> Callable[[torch.Tensor, torch.Tensor], object] | str:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    try:
        exported = export_decoder(_model(layers), max_cache_len=cache, max_prompt=PROMPT)
        edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
        pte = edge.to_executorch().buffer
    except Exception as error:
        return f"does not lower: {type(error).__name__}: {str(error)[:200]}"
    return _executorch(pte)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--layers", type=int, default=32, help="fewer for a quick run")
    parser.add_argument("--tokens", type=int, default=256, help="decode steps after the prompt")
    parser.add_argument("--no-xnnpack", action="store_true")
    args = parser.parse_args()
    cache = PROMPT + args.tokens + 16

    pte, lowering, whole, weights = _lowering_peak(args.layers, cache)
    report(f"SmolLM2-360M configuration, {args.layers} layers, float32, cache of {cache} positions")
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
        args.tokens,
        progress=lambda done, _: rss.append(_rss_bytes()),
    )
    report(
        f"RSS while generating {args.tokens} tokens: {rss[15] / 2**20:.0f} MiB after 16, "
        f"{rss[-1] / 2**20:.0f} MiB at the end, {max(rss) / 2**20:.0f} MiB at most "
        f"({result.decode_tokens_per_second:.2f} tokens/s)"
    )
    second = generate(loaded, list(range(PROMPT + 1, 2 * PROMPT + 1)), 2)
    report(
        f"prefill of {PROMPT} tokens on one loaded program: the first prompt "
        f"{result.prefill_seconds * 1e3:.1f} ms, a second one "
        f"{second.prefill_seconds * 1e3:.1f} ms, with no reload"
    )

    variants: dict[str, Callable[[torch.Tensor, torch.Tensor], object] | str] = {
        "OpenVINO (same IR, stateful)": _openvino(pte),
        "this backend (.pte)": _executorch(pte),
    }
    if not args.no_xnnpack:
        variants["ExecuTorch XNNPACK (.pte)"] = _xnnpack(args.layers, cache)
    report(f"\n{'':30} {'prefill 128 ms':>15} {'ratio':>6} {'decode ms/token':>16} {'ratio':>6}")
    baseline: tuple[float, float] | None = None
    for name, call in variants.items():
        if isinstance(call, str):
            report(f"{name:30} {call}")
            continue
        times = _steps(call, args.tokens)
        prefill, decode = times[0], statistics.median(times[1:])
        baseline = baseline or (prefill, decode)
        report(
            f"{name:30} {prefill * 1e3:15.1f} {prefill / baseline[0]:6.2f} "
            f"{decode * 1e3:16.2f} {decode / baseline[1]:6.2f}"
        )


if __name__ == "__main__":
    main()
