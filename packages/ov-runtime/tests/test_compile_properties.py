"""The properties a payload compiles with are the native runtime's to decide (``compile_properties``
in ``native/compiled_model.h``); Python asks it through ``ov_runtime.native.compile_properties``."""

import dataclasses

import pytest
import torch

from ov_convert import Payload
from ov_runtime import compile_specs, lower
from ov_runtime.native import compile_properties, int8_products_exact


def processed_bytes(specs=None) -> bytes:
    lowered = lower(torch.nn.Linear(4, 2), (torch.randn(3, 4),), specs)
    return bytes(lowered.program.executorch_program.backend_delegate_data[0].data)


def test_the_payloads_properties_and_the_default_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("OV_EXECUTORCH_CACHE_DIR", str(tmp_path / "cache"))
    assert compile_properties(processed_bytes()) == {
        "INFERENCE_PRECISION_HINT": "f32",
        "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
        "CACHE_DIR": str(tmp_path / "cache"),
    }


def test_cache_dir_none_reaches_openvino_as_its_own_no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("OV_EXECUTORCH_CACHE_DIR", str(tmp_path / "cache"))
    properties = compile_properties(processed_bytes(compile_specs(cache_dir="none")))
    assert properties["CACHE_DIR"] == ""


def test_wide_int8_weights_turn_the_low_precision_mode_off_only_where_products_saturate():
    payload = Payload.from_bytes(processed_bytes())
    wide = dataclasses.replace(payload, wide_int8_weights=True).to_bytes()
    expected = None if int8_products_exact() else "NO"
    assert compile_properties(wide).get("LP_TRANSFORMS_MODE") == expected
    assert "LP_TRANSFORMS_MODE" not in compile_properties(payload.to_bytes())


def test_a_refused_payload_says_why():
    with pytest.raises(ValueError, match="magic"):
        compile_properties(b"not a payload" * 40)
