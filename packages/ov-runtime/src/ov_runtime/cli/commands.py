"""The ``lower``, ``run``, ``profile``, ``generate`` and ``inspect`` commands: thin wrappers of the facade that print."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

import torch

from ov_runtime import facade  # each name loads its module on first use: `run` needs no compiler
from ov_runtime.cli.minilm import MissingModelPackageError
from ov_runtime.exceptions import BackendUnavailableError, ExecutionError
from ov_spec import KNOWN_KEYS


def user_errors() -> tuple[type[Exception], ...]:
    """Errors the command line reports in one line, with exit status 2.

    ov_convert's ConversionError joins them once lowering has imported it:
    only lowering raises it, and importing it for ``run`` would load the converter.
    """
    errors: tuple[type[Exception], ...] = (
        MissingModelPackageError,
        BackendUnavailableError,
        ExecutionError,
        OSError,
        ValueError,  # CompileSpecError, a file that is not a program
    )
    converter = sys.modules.get("ov_convert")
    return (*errors, converter.ConversionError) if converter is not None else errors


def spec_values(args: argparse.Namespace) -> dict[str, str]:
    """The compile spec options given on the command line."""
    return {key: value for key in KNOWN_KEYS if (value := getattr(args, key)) is not None}


def _load_exported(path: Path) -> torch.export.ExportedProgram:
    if not path.is_file():
        raise FileNotFoundError(f"no exported program at {path}")
    # PyTorch logs a traceback for a file it cannot read; the error below names the file.
    export_logger = logging.getLogger("torch.export")
    level = export_logger.level
    export_logger.setLevel(logging.ERROR)
    try:
        return torch.export.load(path)
    except Exception as error:  # PyTorch raises several kinds for a file it cannot read
        raise ValueError(
            f"{path} is not an exported program saved with torch.export.save: {error}"
        ) from error
    finally:
        export_logger.setLevel(level)


def lower_program(path: Path, output: Path, specs: dict[str, str]) -> int:
    """Lower the ``ExportedProgram`` saved at ``path``, write the ``.pte`` and print a summary."""
    specs_list = facade.compile_specs(
        **specs
    )  # a bad compile spec fails before the program is read
    lowered = facade.lower(_load_exported(path), compile_specs=specs_list)
    lowered.save(str(output))
    print(f"wrote {output} ({len(lowered.buffer)} bytes)")
    print(
        f"nodes delegated to OpenVINO: {lowered.delegated_nodes}; "
        f"left on ExecuTorch's CPU kernels: {lowered.cpu_nodes}"
    )
    for name, reason in lowered.rejections.items():
        print(f"  {name}: {reason}")
    return 0


def inspect(path: Path, specs: dict[str, str]) -> int:
    """Print the delegates of a ``.pte``, or of an exported program (``.pt2``) lowered first."""
    if path.suffix == ".pt2":
        specs_list = facade.compile_specs(**specs)
        print(facade.inspect_program(_load_exported(path), specs_list).format())
    else:
        print(facade.inspect_program(path).format())
    return 0


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


def _load_inputs(path: Path) -> list[Any]:
    """The inputs saved at ``path``: a tuple or list of tensors and scalars, or one tensor."""
    if not path.is_file():
        raise FileNotFoundError(f"no inputs file at {path}")
    expected = "a file written by torch.save of a tuple of tensors and scalars, or of one tensor"
    try:
        inputs = torch.load(path, weights_only=True)
    except Exception as error:  # torch.load raises several kinds for a file it cannot read
        text = str(error).strip()
        first_line = text.splitlines()[0] if text else type(error).__name__
        raise ValueError(f"cannot read inputs from {path} ({expected}): {first_line}") from error
    if isinstance(inputs, torch.Tensor):
        return [inputs]
    if not isinstance(inputs, (tuple, list)):
        raise ValueError(f"{path} holds a {type(inputs).__name__}; expected {expected}")
    return list(inputs)


def run_program(pte: Path, inputs_path: Path | None, method: str) -> int:
    """Run ``method`` of a saved ``.pte`` on the inputs saved at ``inputs_path``; print each output."""
    inputs = _load_inputs(inputs_path) if inputs_path is not None else []
    try:
        outputs = facade.run(pte, inputs, method=method)
    except ExecutionError as error:
        if inputs_path is None:
            raise ExecutionError(
                f"{error}; pass the inputs with --inputs FILE (torch.save of a tuple)"
            ) from error
        raise
    for index, value in enumerate(outputs):
        print(f"output {index}: {_summary(value)}")
    return 0


def profile(
    pte: Path, inputs_path: Path | None, method: str, calls: int, top: int, etdump: Path | None
) -> int:
    """Run ``method`` ``calls`` times with an ETDump and per-layer counters; print where the time went."""
    inputs = _load_inputs(inputs_path) if inputs_path is not None else []
    if not pte.is_file():
        raise FileNotFoundError(f"no program at {pte}")
    result = facade.profile_program(pte, inputs, method=method, calls=calls, etdump=etdump)
    print(result.format(top))
    if etdump is not None:
        print(f"wrote {etdump} (executorch.devtools.Inspector reads it)")
    return 0


def _token_ids(text: str) -> list[int]:
    try:
        return [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise ValueError(f"--prompt-ids {text!r} is not integers separated by commas") from None


def generate_tokens(
    pte: Path, prompts: list[str], max_new_tokens: int, eos_token_id: int | None, method: str
) -> int:
    """Generate greedily after each prompt in turn, on one loaded program, and print the results.

    For each prompt: its new token ids and its prefill and decode speeds.
    Progress goes to stderr, on one line, when it is a terminal.
    """
    interactive = sys.stderr.isatty()
    token_ids = [_token_ids(prompt) for prompt in prompts]  # all checked before loading

    def show(done: int, total: int) -> None:
        print(f"\rgenerated {done}/{total} tokens", end="", file=sys.stderr, flush=True)

    program = facade.load_program(pte)
    for index, ids in enumerate(token_ids):
        result = facade.generate(
            program,
            ids,
            max_new_tokens,
            method=method,
            eos_token_id=eos_token_id,
            progress=show if interactive else None,
        )
        if interactive:
            print(file=sys.stderr)
        if len(token_ids) > 1:
            print(f"prompt {index + 1}:")
        print("tokens: " + ",".join(map(str, result.tokens)))
        print(
            f"prefill: {result.prompt_tokens} tokens in {result.prefill_seconds * 1e3:.1f} ms "
            f"({result.prefill_tokens_per_second:.1f} tokens/s)"
        )
        decoded = len(result.tokens) - 1
        print(
            f"decode: {decoded} tokens in {result.decode_seconds * 1e3:.1f} ms "
            f"({result.decode_tokens_per_second:.1f} tokens/s)"
        )
    return 0
