"""OpenVINO's model cache: on by default in a per-user folder, moved or turned off by the
environment or the ``cache_dir`` compile spec (``model_cache.h`` of the native runtime)."""

import pytest
import torch

from ov_runtime import compile_specs, load_program, lower, run


class Affine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(16, 8)

    def forward(self, x):
        return self.linear(x).relu()


@pytest.fixture
def model_and_inputs():
    torch.manual_seed(0)
    return Affine().eval(), (torch.randn(4, 16),)


def load_and_run(model, inputs, *, specs=None):
    """Lower, load and run; check the result against eager."""
    output = run(load_program(lower(model, inputs, specs).buffer), inputs)[0]
    torch.testing.assert_close(output, model(*inputs), rtol=1e-5, atol=1e-6)


def files_in(folder):
    return sorted(path.name for path in folder.rglob("*")) if folder.exists() else []


def test_by_default_the_cache_is_a_folder_in_xdg_cache_home(
    tmp_path, monkeypatch, model_and_inputs
):
    monkeypatch.delenv("OV_EXECUTORCH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    load_and_run(*model_and_inputs)
    cached = files_in(tmp_path / "xdg" / "ov_executorch")
    assert any(name.endswith(".blob") for name in cached), cached
    load_and_run(*model_and_inputs)  # imported from the cache this time
    assert files_in(tmp_path / "xdg" / "ov_executorch") == cached


def test_without_xdg_cache_home_the_cache_is_under_home(tmp_path, monkeypatch, model_and_inputs):
    monkeypatch.delenv("OV_EXECUTORCH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/paths/are/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    load_and_run(*model_and_inputs)
    assert files_in(tmp_path / ".cache" / "ov_executorch")


def test_the_environment_moves_the_cache_or_turns_it_off(tmp_path, monkeypatch, model_and_inputs):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OV_EXECUTORCH_CACHE_DIR", str(tmp_path / "chosen"))
    load_and_run(*model_and_inputs)
    assert files_in(tmp_path / "chosen")
    monkeypatch.setenv("OV_EXECUTORCH_CACHE_DIR", "none")
    load_and_run(*model_and_inputs)
    assert not files_in(tmp_path / "xdg")


def test_an_empty_environment_value_means_the_default_folder(
    tmp_path, monkeypatch, model_and_inputs
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OV_EXECUTORCH_CACHE_DIR", "")
    load_and_run(*model_and_inputs)
    assert files_in(tmp_path / "xdg" / "ov_executorch")


def test_the_compile_spec_turns_the_cache_off_or_names_its_folder(
    tmp_path, monkeypatch, model_and_inputs
):
    monkeypatch.setenv("OV_EXECUTORCH_CACHE_DIR", str(tmp_path / "default"))
    load_and_run(*model_and_inputs, specs=compile_specs(cache_dir="none"))
    assert not files_in(tmp_path / "default")
    load_and_run(*model_and_inputs, specs=compile_specs(cache_dir=str(tmp_path / "named")))
    assert files_in(tmp_path / "named") and not files_in(tmp_path / "default")


def test_a_folder_that_cannot_be_written_means_no_cache_not_a_failure(
    tmp_path, monkeypatch, model_and_inputs
):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("OV_EXECUTORCH_CACHE_DIR", str(blocker / "cache"))
    load_and_run(*model_and_inputs)
    assert blocker.read_text() == "not a folder"
