"""The main job, end to end: all-MiniLM-L6-v2 lowered to OpenVINO and compared with eager."""

from __future__ import annotations

import importlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, TypeVar

import torch

from ov_runtime.cli.minilm import SENTENCES, minilm
from ov_runtime.facade import load_program, lower, run

TOLERANCE = 1e-5
"""Largest absolute difference from eager allowed for the float32 embeddings."""

T = TypeVar("T")


class _Steps:
    """Prints each step as it starts and its duration when it ends."""

    def __init__(self, total: int, out: TextIO) -> None:
        self.total = total
        self.out = out
        self.times: list[tuple[str, float]] = []

    @contextmanager
    def step(self, title: str) -> Iterator[None]:
        print(f"[{len(self.times) + 1}/{self.total}] {title} ...", file=self.out, flush=True)
        start = time.perf_counter()
        yield
        elapsed = time.perf_counter() - start
        self.times.append((title, elapsed))
        print(f"      done in {elapsed:.2f} s", file=self.out, flush=True)

    def timed(self, title: str, work: Callable[[], T]) -> T:
        with self.step(title):
            return work()


def _matrix(embeddings: torch.Tensor) -> torch.Tensor:
    return embeddings @ embeddings.T


def _print_matrices(eager: torch.Tensor, openvino: torch.Tensor, out: TextIO) -> None:
    n = eager.shape[0]
    header = " ".join(f"{j:>7}" for j in range(n))
    print(
        f"\nSentence similarity (cosine)\n{'eager':<{8 * n + 4}}   OpenVINO via ExecuTorch",
        file=out,
    )
    print(f"    {header}       {header}", file=out)
    for i in range(n):
        left = " ".join(f"{v:7.4f}" for v in eager[i].tolist())
        right = " ".join(f"{v:7.4f}" for v in openvino[i].tolist())
        print(f"{i:>3} {left}   {i:>3} {right}", file=out)
    for i, sentence in enumerate(SENTENCES):
        print(f"  {i}: {sentence}", file=out)


def _quiet_model_loading() -> None:
    """Keep transformers' progress bar off the demo's report."""
    try:
        transformers: Any = importlib.import_module("transformers")
    except ImportError:
        return  # minilm() names the missing package
    transformers.utils.logging.disable_progress_bar()


def run_demo(output: Path | None = None, out: TextIO = sys.stdout) -> int:
    """Lower all-MiniLM-L6-v2 with this backend, run the ``.pte`` and compare with eager.

    Args:
        output: Where to save the ``.pte``; a temporary folder when ``None``.
        out: Where the report goes.

    Returns:
        0 when the embeddings match eager within :data:`TOLERANCE`, else 1.

    Raises:
        MissingModelPackageError: The model packages are not installed.
    """
    steps = _Steps(6, out)
    _quiet_model_loading()
    model, inputs = steps.timed(
        "loading all-MiniLM-L6-v2 (weights and tokenizer, offline)", lambda: minilm(SENTENCES)
    )
    with torch.no_grad():
        eager = steps.timed("running PyTorch eager", lambda: model(*inputs))
        exported = steps.timed(
            "exporting with torch.export", lambda: torch.export.export(model, inputs)
        )
    lowered = steps.timed("lowering with the OpenVINO partitioner", lambda: lower(exported))
    with tempfile.TemporaryDirectory() as folder:
        path = output or Path(folder) / "minilm.pte"
        with steps.step(f"saving the program to {path}"):
            lowered.save(str(path))
        with steps.step("loading and running it with the ExecuTorch runtime on OpenVINO (CPU)"):
            embeddings = run(load_program(path), inputs)[0]

    difference = (embeddings - eager).abs().max().item()
    _print_matrices(_matrix(eager), _matrix(embeddings), out)
    print(f"\nembeddings: {tuple(embeddings.shape)} {embeddings.dtype}", file=out)
    print(f"max abs difference from eager: {difference:.3g} (tolerance {TOLERANCE:g})", file=out)
    print(
        f"nodes delegated to OpenVINO: {lowered.delegated_nodes}; "
        f"left on ExecuTorch's CPU kernels: {lowered.cpu_nodes}",
        file=out,
    )
    print("time per step:", file=out)
    for title, seconds in steps.times:
        print(f"  {seconds:7.2f} s  {title}", file=out)
    if difference > TOLERANCE:
        print(f"FAILED: the .pte differs from eager by more than {TOLERANCE:g}", file=out)
        return 1
    print("OK: the .pte matches eager", file=out)
    return 0
