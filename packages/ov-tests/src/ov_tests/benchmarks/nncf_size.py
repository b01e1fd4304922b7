"""The size of NNCF's compressed IR of an LLM, to hold this backend's quantized ``.pte`` against.

OpenVINO's own LLM stack compresses weights with NNCF (``nncf.compress_weights``)
on the float IR; optimum-intel exports that IR, which needs an environment of its
own. The weights are what the size measures, so here the same seeded float model
goes through ``torch.export`` and ``openvino.convert_model`` without its KV cache
(transformers' ``use_cache=False``), and NNCF compresses it in the weight format
the benchmark's torchao configuration uses: int8 symmetric per output channel,
or int4 symmetric in groups with the embedding and the output layer int8
(NNCF's default for int4 keeps them in its backup precision, made symmetric here to match).
The tied embedding stays one constant, as it is in the model.

Needs ``nncf`` (the workspace's ``builtin-openvino`` group).
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from typing import Any

import openvino as ov
import torch


def nncf_available() -> bool:
    """Whether ``nncf`` is importable."""
    return importlib.util.find_spec("nncf") is not None


class _Logits(torch.nn.Module):
    """A causal LM's logits for ``input_ids``, without a cache."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits  # type: ignore[no-any-return]


def nncf_ir_bytes(model: Any, weights: str, group: int) -> int:
    """The bytes of NNCF's IR (``.xml`` and ``.bin``) of float ``model`` compressed to ``weights``.

    Args:
        model: A float32 transformers causal LM.
        weights: ``int8`` (``INT8_SYM``, per output channel) or ``int4``
            (``INT4_SYM`` in groups of ``group``, embedding and output layer ``INT8_SYM``).
        group: The int4 group size.

    Raises:
        ValueError: ``weights`` is neither ``int8`` nor ``int4``.
    """
    import nncf

    modes = {
        "int8": {"mode": nncf.CompressWeightsMode.INT8_SYM},
        "int4": {
            "mode": nncf.CompressWeightsMode.INT4_SYM,
            "group_size": group,
            "ratio": 1.0,
            "backup_mode": nncf.BackupMode.INT8_SYM,
        },
    }
    if weights not in modes:
        raise ValueError(f"NNCF compresses int8 or int4 weights here, not {weights!r}")
    with torch.no_grad():
        exported = torch.export.export(_Logits(model), (torch.ones(1, 8, dtype=torch.long),))
        compressed = nncf.compress_weights(ov.convert_model(exported), **modes[weights])
    with tempfile.TemporaryDirectory(prefix="ov_nncf_") as folder:
        xml = Path(folder) / "model.xml"
        ov.save_model(compressed, xml, compress_to_fp16=False)
        return xml.stat().st_size + xml.with_suffix(".bin").stat().st_size
