"""Two methods over the same weights: file sizes, and memory after loading both.

A stack of float32 ``Linear(width, width)`` layers (1 GiB of weights by default) is
exported twice, with a batch of 8 (``prefill``) and of 1 (``decode``), and lowered as one
program through ExecuTorch's own API, twice: with the weights in the ``.pte``, and tagged
by ExecuTorch's external-constants pass into a ``.ptd`` beside it. Each delegate names the
program's one piece of named weights (``ov_convert.named_weights``), so the files hold the
weights once. For each layout, a fresh process loads both methods through
``executorch.runtime`` (which maps the files) and reports its resident memory (VmRSS, and
the part of it that is file pages, RssFile) and its peak (VmHWM); a second one loads
through ``ov_runtime.load_program``, which reads the files into memory.

    uv run python -m ov_tests.benchmarks.named_data            # 1 GiB of weights
    uv run python -m ov_tests.benchmarks.named_data --gib 0.05 # a quick run
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from ov_tests.benchmarks._timing import report

WIDTH = 4096


def _status() -> dict[str, int]:
    """VmRSS, RssFile, RssAnon and VmHWM of this process, in MiB."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssFile", "RssAnon", "VmHWM"):
            fields[name] = int(value.split()[0]) // 1024
    return fields


def _load(pte: str, ptd: str | None, facade: bool) -> None:
    """Load both methods in this process and print its memory as JSON."""
    before = _status()
    if facade:
        from ov_runtime import load_program

        program = load_program(pte, data_path=ptd)
        methods = [program.load_method(name) for name in ("prefill", "decode")]
        methods[1].execute((torch.ones(1, WIDTH),))
    else:
        from executorch.runtime import Runtime

        import ov_runtime  # noqa: F401 - registers the backend

        loaded = Runtime.get().load_program(pte, data_path=ptd)
        methods = [loaded.load_method(name) for name in ("prefill", "decode")]
        methods[1].execute([torch.ones(1, WIDTH)])
    report(json.dumps({"before": before, "after": _status()}))


def _lower(layers: int, folder: Path, external: bool) -> tuple[Path, Path | None]:
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.passes.external_constants_pass import (
        delegate_external_constants_pass_unlifted,
    )

    from ov_runtime import OpenvinoPartitioner, compile_specs

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        *(torch.nn.Linear(WIDTH, WIDTH, bias=False) for _ in range(layers))
    ).eval()
    programs = {}
    for name, batch in (("prefill", 8), ("decode", 1)):
        example = (torch.randn(batch, WIDTH),)
        if external:
            tagged = torch.export.export(model, example).module()
            delegate_external_constants_pass_unlifted(tagged, gen_tag_fn=lambda node: "weights")
            programs[name] = torch.export.export(tagged, example, strict=True)
        else:
            programs[name] = torch.export.export(model, example)
    program = to_edge_transform_and_lower(
        programs, partitioner=[OpenvinoPartitioner(compile_specs())]
    ).to_executorch()
    pte = folder / ("external.pte" if external else "inline.pte")
    with pte.open("wb") as file:
        program.write_to_file(file)
    if not external:
        return pte, None
    program.write_tensor_data_to_file(str(folder))
    return pte, folder / "weights.ptd"


def _measure(pte: Path, ptd: Path | None, facade: bool) -> dict[str, dict[str, int]]:
    command = [sys.executable, "-m", "ov_tests.benchmarks.named_data", "--load", str(pte)]
    command += ["--data", str(ptd)] if ptd else []
    command += ["--facade"] if facade else []
    process = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict[str, dict[str, int]] = json.loads(process.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """Lower both layouts and print their sizes and memory as a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="GiB of weights (default 1)")
    parser.add_argument("--load", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--facade", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.load:
        _load(arguments.load, arguments.data, arguments.facade)
        return
    layers = max(1, round(arguments.gib * 2**30 / (WIDTH * WIDTH * 4)))
    weights = layers * WIDTH * WIDTH * 4
    report(f"{layers} layers of Linear({WIDTH}, {WIDTH}): {weights / 2**20:.0f} MiB of weights")
    report(
        "| layout | .pte MiB | .ptd MiB | files / weights | loader | RSS MiB before | "
        "RSS after both methods | its file pages | peak |"
    )
    report("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for external in (False, True):
            pte, ptd = _lower(layers, Path(folder), external)
            sizes = [pte.stat().st_size, ptd.stat().st_size if ptd else 0]
            for facade in (False, True):
                measured = _measure(pte, ptd, facade)
                before, memory = measured["before"], measured["after"]
                report(
                    f"| {'.ptd' if external else '.pte'} | {sizes[0] / 2**20:.1f} | "
                    f"{sizes[1] / 2**20:.1f} | {sum(sizes) / weights:.4f} | "
                    f"{'load_program' if facade else 'executorch.runtime'} | {before['VmRSS']} | "
                    f"{memory['VmRSS']} | {memory['RssFile']} | {memory['VmHWM']} |"
                )


if __name__ == "__main__":
    main()
