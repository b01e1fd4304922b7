"""Model zoo: the architectures users deploy, with seeded weights and no downloads.

Each :class:`ZooModel` builds a model in eval mode and makes its inputs for a
seed, so a test can lower it once and compare two calls on different inputs
with eager. Sources: torchvision's classification models, transformers'
architectures from small configs, and ExecuTorch's example models
(``executorch.examples.models.MODEL_NAME_TO_MODEL``) where they build offline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

Inputs = tuple[Any, ...]


@dataclass(frozen=True)
class ZooModel:
    """One model of the zoo.

    Attributes:
        name: Its id in tests (``torchvision/resnet18``).
        build: Returns the model (eval mode, weights seeded) and a function
            that makes its inputs for a seed.
        atol: Largest absolute difference from eager allowed per element, plus
            ``rtol`` times the eager value (float32 throughout).
        rtol: Relative tolerance.
        slow: Lowering takes more than about 20 s on 2 cores.
    """

    name: str
    build: Callable[[], tuple[torch.nn.Module, Callable[[int], Inputs]]]
    atol: float = 1e-4
    rtol: float = 1e-4
    slow: bool = False


def _image(size: int = 224) -> Callable[[int], Inputs]:
    def make(seed: int) -> Inputs:
        generator = torch.Generator().manual_seed(seed)
        return (torch.randn(1, 3, size, size, generator=generator),)

    return make


def _tokens(vocab: int, length: int, *, mask: bool = False) -> Callable[[int], Inputs]:
    def make(seed: int) -> Inputs:
        generator = torch.Generator().manual_seed(seed)
        ids = torch.randint(0, vocab, (1, length), generator=generator)
        return (ids, torch.ones(1, length, dtype=torch.long)) if mask else (ids,)

    return make


def _with_batch_statistics(model: torch.nn.Module, batch: torch.Tensor) -> torch.nn.Module:
    """Set every batch norm's running statistics from ``batch``, then return the model in eval mode.

    With torchvision's initial weights and unit running variances, the logits of
    MobileNetV3 and EfficientNet shrink to 1e-9 and 1e-14, where any output
    passes a comparison; statistics from a batch keep activations near unit scale.
    """
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative average: one batch sets the statistics
    with torch.no_grad():
        model.train()(batch)
    return model.eval()


def _torchvision(name: str) -> Callable[[], tuple[torch.nn.Module, Callable[[int], Inputs]]]:
    def build() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
        import torchvision  # imported here: it takes a second and few tests need it

        torch.manual_seed(0)
        model: torch.nn.Module = getattr(torchvision.models, name)(weights=None)
        for layer in model.modules():
            # ViT's classifier starts at zero, which makes its logits ignore the image.
            if isinstance(layer, torch.nn.Linear) and not layer.weight.any():
                torch.nn.init.normal_(layer.weight, std=0.02)
        batch = torch.randn(4, 3, 224, 224, generator=torch.Generator().manual_seed(100))
        return _with_batch_statistics(model, batch), _image()

    return build


class _Outputs(torch.nn.Module):
    """Calls a transformers model and returns one field of its output."""

    def __init__(self, model: torch.nn.Module, field: str) -> None:
        super().__init__()
        self.model = model
        self.field = field

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        """Return ``model(*inputs).<field>``."""
        output: torch.Tensor = getattr(self.model(*inputs), self.field)
        return output


def _bert() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=1000,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
    )
    return _Outputs(BertModel(config), "last_hidden_state").eval(), _tokens(1000, 16, mask=True)


def _gpt2() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=1000, n_embd=64, n_layer=2, n_head=4, use_cache=False)
    return _Outputs(GPT2LMHeadModel(config), "logits").eval(), _tokens(1000, 16)


def _llama() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=1000,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        use_cache=False,
    )
    return _Outputs(LlamaForCausalLM(config), "logits").eval(), _tokens(1000, 16)


def _whisper_encoder() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    torch.manual_seed(0)
    # The encoder takes 2 * max_source_positions mel frames.
    config = WhisperConfig(
        num_mel_bins=80,
        d_model=64,
        encoder_layers=2,
        encoder_attention_heads=4,
        encoder_ffn_dim=128,
        max_source_positions=100,
    )
    encoder = WhisperEncoder(config)

    def make(seed: int) -> Inputs:
        generator = torch.Generator().manual_seed(seed)
        return (torch.randn(1, 80, 200, generator=generator),)

    return _Outputs(encoder, "last_hidden_state").eval(), make


ZOO: list[ZooModel] = [
    ZooModel("torchvision/resnet18", _torchvision("resnet18")),
    ZooModel("torchvision/mobilenet_v3_small", _torchvision("mobilenet_v3_small")),
    ZooModel("torchvision/efficientnet_b0", _torchvision("efficientnet_b0")),
    ZooModel("torchvision/convnext_tiny", _torchvision("convnext_tiny"), slow=True),
    ZooModel("torchvision/vit_b_16", _torchvision("vit_b_16"), slow=True),
    ZooModel("torchvision/swin_t", _torchvision("swin_t"), slow=True),
    ZooModel("transformers/bert", _bert),
    ZooModel("transformers/gpt2", _gpt2),
    ZooModel("transformers/llama", _llama),
    ZooModel("transformers/whisper_encoder", _whisper_encoder),
]
"""Every model of the zoo, in test order."""
