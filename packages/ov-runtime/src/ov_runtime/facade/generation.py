"""Greedy text generation with a decoder-only LLM program that keeps its own KV cache.

The program takes ``input_ids`` (int64, ``[1, n]``) and the positions of
those tokens, and writes their keys and values into cache buffers it owns.
Two exports make such programs:

- transformers' ExecuTorch integration (``TorchExportableModuleForDecoderOnlyLM``
  with a static cache): the positions are ``cache_position`` (int64, ``[n]``)
  and the logits ``[1, n, vocabulary]``;
- ExecuTorch's own Llama (``executorch.examples.models.llama``): the
  position is ``input_pos`` (int64, ``[1]``, the first token's) and the
  logits ``[1, vocabulary]``, the last token's.

``n`` is 1 in a program exported for decoding only, or at most a bound when
exported with a dynamic sequence length, in which case the prompt goes in
chunks of up to that bound (prefill). A constant
method ``get_max_seq_len``, as ExecuTorch's LLM export adds and
``lower(..., constant_methods={"get_max_seq_len": n})`` adds, gives the
cache's length, which :func:`generate` then checks the request against.

A loaded program serves one prompt after another, with no reload: each prompt's
positions count from 0, and what an earlier prompt wrote at later positions is
hidden by the static cache's causal mask (those positions get exactly zero
weight), so a second prompt generates what a fresh program would. Checked for
both exports above (``test_generation.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from ov_runtime.facade.running import LoadedProgram, load_program

Progress = Callable[[int, int], None]
"""Called after each decoded token with the count so far and the total asked for."""


@dataclass(frozen=True)
class Generation:
    """The tokens a program generated and how fast.

    Attributes:
        tokens: The new token ids, in order (the prompt excluded).
        prompt_tokens: How many prompt tokens went through prefill.
        prefill_seconds: Wall time of the prefill calls, which also give the
            first new token.
        decode_seconds: Wall time of the one-token calls after it.
    """

    tokens: list[int]
    prompt_tokens: int
    prefill_seconds: float
    decode_seconds: float

    @property
    def prefill_tokens_per_second(self) -> float:
        """Prompt tokens per second of prefill."""
        return self.prompt_tokens / self.prefill_seconds if self.prefill_seconds else 0.0

    @property
    def decode_tokens_per_second(self) -> float:
        """Tokens per second of the one-token decode calls (the first new token excluded)."""
        decoded = len(self.tokens) - 1
        return decoded / self.decode_seconds if decoded > 0 and self.decode_seconds else 0.0


def generate(
    program: LoadedProgram | bytes | str | Path,
    prompt_ids: Sequence[int],
    max_new_tokens: int,
    *,
    method: str = "forward",
    eos_token_id: int | None = None,
    progress: Progress | None = None,
) -> Generation:
    """Generate up to ``max_new_tokens`` tokens after ``prompt_ids`` by greedy decoding.

    Greedy: each new token is the argmax of the last position's logits, as
    transformers' ``generate(do_sample=False)`` picks it. Positions count
    from 0. Give a :class:`LoadedProgram` to generate for several prompts on
    one load: the delegates stay compiled and warm, and what an earlier
    prompt left in the cache is masked (see the module's docstring).

    Args:
        program: A loaded program, or a ``.pte`` as bytes or a path.
        prompt_ids: The prompt's token ids (at least one).
        max_new_tokens: How many tokens to generate at most (at least one).
        method: The method to call.
        eos_token_id: Stop after generating this token.
        progress: Called after each new token with the count and the total.

    Raises:
        ValueError: An empty prompt, ``max_new_tokens`` below 1, or a prompt
            and generation longer than the method's cache positions allow.
        ExecutionError: A call failed.
        ValueError: The method does not take token ids and positions, or does
            not return logits, as above.
    """
    if not prompt_ids:
        raise ValueError("prompt_ids is empty; give at least one token id")
    if max_new_tokens < 1:
        raise ValueError(f"max_new_tokens is {max_new_tokens}; give 1 or more")
    loaded = program if isinstance(program, LoadedProgram) else load_program(program)
    run = loaded.load_method(method)
    chunk, first_position_only = _call_sizes(loaded, method)
    # The last token generated is never fed back, so the cache holds one fewer.
    positions = len(prompt_ids) + max_new_tokens - 1
    limit = _cache_positions(loaded, method)
    if limit is not None and positions > limit:
        raise ValueError(
            f"{len(prompt_ids)} prompt tokens and {max_new_tokens} new ones need "
            f"{positions} cache positions; the program's cache has {limit}"
        )

    start = time.perf_counter()
    for begin in range(0, len(prompt_ids), chunk):
        ids = list(prompt_ids[begin : begin + chunk])
        logits = _call(run.execute, ids, begin, first_position_only)
    tokens = [int(logits.argmax())]
    prefill = time.perf_counter() - start
    if progress is not None:
        progress(1, max_new_tokens)

    start = time.perf_counter()
    while len(tokens) < max_new_tokens and tokens[-1] != eos_token_id:
        first = len(prompt_ids) + len(tokens) - 1
        logits = _call(run.execute, tokens[-1:], first, first_position_only)
        tokens.append(int(logits.argmax()))
        if progress is not None:
            progress(len(tokens), max_new_tokens)
    return Generation(tokens, len(prompt_ids), prefill, time.perf_counter() - start)


def _call(
    execute: Callable[[list[torch.Tensor]], list[object]],
    ids: list[int],
    first: int,
    first_position_only: bool,
) -> torch.Tensor:
    """Run one call; return the last token's logits (``[vocabulary]``)."""
    positions = (
        torch.tensor([first]) if first_position_only else torch.arange(first, first + len(ids))
    )
    (logits, *_) = execute([torch.tensor([ids], dtype=torch.long), positions])
    if not isinstance(logits, torch.Tensor) or logits.dim() not in (2, 3):
        raise ValueError(
            "the method's first output is not logits of shape [1, n, vocabulary] or "
            f"[1, vocabulary]; got {getattr(logits, 'shape', type(logits).__name__)}"
        )
    return logits[0, -1] if logits.dim() == 3 else logits[0]


def _call_sizes(program: LoadedProgram, method: str) -> tuple[int, bool]:
    """How many tokens one call takes, and whether it takes the first token's position alone.

    The first is the bound of ``input_ids``' sequence dimension; the second
    holds where the positions have one element (``input_pos``), which for a
    one-token call is the same as ``cache_position``.
    """
    specs = program.method_inputs(method)
    if len(specs) != 2 or len(specs[0].bounds) != 2 or len(specs[1].bounds) != 1:
        raise ValueError(
            f"method {method!r} does not take (input_ids [1, n], positions [n] or [1]); "
            f"it takes {len(specs)} inputs of sizes {[spec.bounds for spec in specs]}"
        )
    return specs[0].bounds[1], specs[1].bounds[0] == 1


def _cache_positions(program: LoadedProgram, method: str) -> int | None:
    """The static cache's length, from transformers' ``get_max_seq_len`` method where exported."""
    if "get_max_seq_len" not in program.method_names:
        return None
    (length,) = program.load_method("get_max_seq_len").execute([])
    return int(length)
