"""The ``ov-executorch`` command: ``demo`` and ``run``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from ov_runtime.exceptions import BackendUnavailableError, ExecutionError
from ov_runtime.models import MissingModelPackageError


def _summary(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        text = f"tensor shape={tuple(value.shape)} dtype={value.dtype}"
        if value.numel() and (value.is_floating_point() or value.dtype != torch.bool):
            as_float = value.double()
            text += f" min={as_float.min().item():.6g} max={as_float.max().item():.6g}"
            text += f" mean={as_float.mean().item():.6g}"
        elif value.numel():
            text += f" true={int(value.sum().item())}/{value.numel()}"
        return text
    return f"{type(value).__name__} {value!r}"


def _run(pte: Path, inputs_path: Path | None, method: str) -> int:
    from ov_runtime.running import run

    inputs: Any = ()
    if inputs_path is not None:
        inputs = torch.load(inputs_path, weights_only=True)
        if not isinstance(inputs, (tuple, list)):
            inputs = (inputs,)
    try:
        outputs = run(pte, list(inputs), method=method)
    except ExecutionError as error:
        if inputs_path is None:
            raise ExecutionError(
                f"{error}; pass the inputs with --inputs FILE (torch.save of a tuple)"
            ) from error
        raise
    for index, value in enumerate(outputs):
        print(f"output {index}: {_summary(value)}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ov-executorch", description="OpenVINO backend for ExecuTorch."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="lower all-MiniLM-L6-v2, run the .pte on OpenVINO and compare with eager"
    )
    demo.add_argument(
        "--output", type=Path, help="where to save the .pte (default: a temporary file)"
    )
    runner = commands.add_parser("run", help="run a saved .pte and summarize its outputs")
    runner.add_argument("pte", type=Path, help="the program (.pte)")
    runner.add_argument(
        "--inputs", type=Path, help="a file written by torch.save of a tuple of inputs"
    )
    runner.add_argument("--method", default="forward", help="method to run (default: forward)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            from ov_runtime.cli.demo import run_demo

            return run_demo(args.output)
        return _run(args.pte, args.inputs, args.method)
    except (MissingModelPackageError, BackendUnavailableError, ExecutionError, OSError) as error:
        print(f"ov-executorch: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
