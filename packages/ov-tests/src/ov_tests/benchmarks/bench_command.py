"""``ov-executorch bench``: the command-line face of :mod:`ov_tests.benchmarks.bench`.

ov-tests adds the command to ov-runtime's ``ov-executorch`` through the
``ov_executorch.commands`` entry point group: ov-runtime, the lower layer,
never imports this package.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = (
    "measure a model or .pte beside OpenVINO itself, XNNPACK, eager and the built-in backend: "
    "per-call latency, loading, lowering time and memory; writes a Markdown table and a plot"
)
DEFAULT_MODELS = ("mlp", "encoder", "resnet18", "minilm")
MODEL_NAMES = ("add", *DEFAULT_MODELS, "linear8192")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's options."""
    parser.add_argument(
        "targets",
        nargs="*",
        default=list(DEFAULT_MODELS),
        metavar="MODEL_OR_PTE",
        help=f"models ({', '.join(MODEL_NAMES)}; default: {' '.join(DEFAULT_MODELS)}) "
        "or .pte files",
    )
    parser.add_argument(
        "--precisions", default="f32,bf16", help="inference precisions (default: f32,bf16)"
    )
    parser.add_argument(
        "--rounds", type=int, default=20, help="turns each variant takes (default: 20)"
    )
    parser.add_argument("--block", type=int, default=3, help="calls per turn (default: 3)")
    parser.add_argument(
        "--output-dir", type=Path, default=Path("bench"), help="where to write (default: bench)"
    )


def run(args: argparse.Namespace) -> int:
    """Run the benchmark with parsed options; 0 when it ran, 2 for a bad option."""
    from ov_tests.benchmarks.bench import command

    return command(args)
