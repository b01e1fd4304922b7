"""A smoke run of ``ov-executorch bench``: it runs and writes its table and plot (timings unchecked)."""

import re

import pytest
import torch

from ov_runtime import lower
from ov_runtime.cli import main
from ov_tests.benchmarks import bench, bench_command
from ov_tests.models import Add


def rows(markdown):
    """Each table row's variant name and its median per-call cell."""
    return {
        cells[1].strip(): cells[2].strip()
        for line in markdown.splitlines()
        if line.startswith("| ") and not line.startswith("| variant")
        for cells in [line.split("|")]
    }


def test_bench_measures_a_named_model_and_a_pte_and_writes_a_table_and_a_plot(tmp_path, capsys):
    pte = tmp_path / "add.pte"
    lower(Add(), (torch.randn(2, 3), torch.randn(2, 3))).save(str(pte))
    arguments = ["add", str(pte), "--precisions", "f32", "--rounds", "2", "--block", "1"]
    assert main(["bench", *arguments, "--output-dir", str(tmp_path / "out")]) == 0

    markdown = (tmp_path / "out" / "bench.md").read_text()
    assert markdown == capsys.readouterr().out
    assert "### one add of two float32 (1, 8) tensors (per-call overhead)" in markdown
    assert f"### {pte}" in markdown
    measured = rows(markdown)
    for variant in (
        "OpenVINO f32",
        "OpenVINO C API f32",
        "this backend f32",
        "XNNPACK f32",
        "add.pte",
    ):
        assert re.fullmatch(r"\d+\.\d{3}", measured[variant]), (variant, markdown)
    assert any(v.startswith("built-in OpenVINO") for v in measured)  # timed, or a note why not
    assert (tmp_path / "out" / "bench.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["resnet-9000"], "'resnet-9000' is neither a model of the benchmark (add, mlp, "),
        (["add", "--precisions", "f8"], "--precisions takes f32, f16 or bf16, not 'f8'"),
        (["add", "--rounds", "0"], "--rounds and --block take a positive number"),
    ],
)
def test_bench_refuses_unknown_models_and_bad_options(arguments, message, tmp_path, capsys):
    assert main(["bench", *arguments, "--output-dir", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "bench.md").exists()


def test_the_command_offers_the_models_the_benchmark_has():
    assert tuple(bench.MODELS) == bench_command.MODEL_NAMES
