"""Model zoo: the architectures users deploy, with seeded weights and no downloads.

Each :class:`ZooModel` builds a model in eval mode and makes its inputs for a
seed, so a test can lower it once and compare two calls on different inputs
with eager. Sources: torchvision's classification models, transformers'
architectures from small configs, and ExecuTorch's example models
(``executorch.examples.models.MODEL_NAME_TO_MODEL``): built by ExecuTorch's own
factory where that works offline, else the same architecture with seeded
weights; :data:`EXAMPLES_LEFT_OUT` says why each other example is not here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from ov_tests.llm import tiny_decoder

Inputs = tuple[Any, ...]
REPEATED_BLOCKS = 2
"""Identical blocks kept of a model built from many (MobileBERT's 24 layers):
each adds lowering time, about 6 s on 2 cores for MobileBERT's, and no op or
pattern the first ones lack; a second block checks what one block's output
feeds."""


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
        slow: Lowering and two calls take more than about 5 s on 2 cores: the
            test runs in the full tier only.
        cpu_ops: Kernels (``aten::div``) the partitioner keeps on ExecuTorch's
            CPU for exactness: integer work OpenVINO would compute narrower.
    """

    name: str
    build: Callable[[], tuple[torch.nn.Module, Callable[[int], Inputs]]]
    atol: float = 1e-4
    rtol: float = 1e-4
    slow: bool = False
    cpu_ops: tuple[str, ...] = ()


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
    passes a comparison, and Inception V3's grow to 1e11; statistics from a
    batch keep activations near unit scale.
    """
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative average: one batch sets the statistics
    with torch.no_grad():
        model.train()(batch)
    return model.eval()


def _torchvision(
    name: str, module: str = "", **options: Any
) -> Callable[[], tuple[torch.nn.Module, Callable[[int], Inputs]]]:
    """Build torchvision's ``name`` (from ``torchvision.models.<module>``) with seeded weights."""

    def build() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
        import torchvision  # imported here: it takes a second and few tests need it

        torch.manual_seed(0)
        namespace = getattr(torchvision.models, module) if module else torchvision.models
        model: torch.nn.Module = getattr(namespace, name)(weights=None, **options)
        _keep_repeated_blocks(model)
        for layer in model.modules():
            # ViT's classifier starts at zero, which makes its logits ignore the image.
            if isinstance(layer, torch.nn.Linear) and not layer.weight.any():
                torch.nn.init.normal_(layer.weight, std=0.02)
        batch = torch.randn(4, 3, 224, 224, generator=torch.Generator().manual_seed(100))
        return _with_batch_statistics(model, batch), _image()

    return build


def _keep_repeated_blocks(model: torch.nn.Module) -> None:
    """Keep REPEATED_BLOCKS of ViT's 12 encoder layers and of the third stage of Swin-T (6 blocks) and ConvNeXt-T (9)."""
    import torchvision

    if isinstance(model, torchvision.models.VisionTransformer):
        model.encoder.layers = model.encoder.layers[:REPEATED_BLOCKS]
    elif isinstance(model, (torchvision.models.SwinTransformer, torchvision.models.ConvNeXt)):
        model.features[5] = model.features[5][:REPEATED_BLOCKS]


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
    model = tiny_decoder("llama")
    model.config.use_cache = False  # one forward of the whole sequence, no KV cache
    return _Outputs(model, "logits").eval(), _tokens(1000, 16)


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


def _he_initialized(model: torch.nn.Module) -> torch.nn.Module:
    """Give every convolution and linear layer seeded He-normal weights; return the model.

    Some example models' initial weights make the output constant (1e-9 for
    MobileNetV2), where any result passes a comparison.
    """
    generator = torch.Generator().manual_seed(11)
    with torch.no_grad():
        for layer in model.modules():
            if isinstance(layer, (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Linear)):
                fan_in = layer.weight[0].numel()
                layer.weight.copy_(
                    torch.randn(layer.weight.shape, generator=generator) * (2.0 / fan_in) ** 0.5
                )
    return model


def _like(example: Inputs) -> Callable[[int], Inputs]:
    """Make inputs shaped like ``example``: seed 0 is the example, others redraw float tensors."""

    def make(seed: int) -> Inputs:
        if seed == 0:
            return example
        generator = torch.Generator().manual_seed(seed)
        return tuple(
            torch.randn(x.shape, generator=generator).to(x.dtype)
            if isinstance(x, torch.Tensor) and x.is_floating_point()
            else x
            for x in example
        )

    return make


def _example(
    name: str, *, he_init: bool = False
) -> Callable[[], tuple[torch.nn.Module, Callable[[int], Inputs]]]:
    """Build an example model with ExecuTorch's own factory (which must not download)."""

    def build() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
        from executorch.examples.models import MODEL_NAME_TO_MODEL
        from executorch.examples.models.model_factory import EagerModelFactory

        torch.manual_seed(0)
        model, inputs, _, _ = EagerModelFactory.create_model(*MODEL_NAME_TO_MODEL[name])
        model = _he_initialized(model) if he_init else model
        return model.eval(), _like(tuple(inputs))

    return build


def _tiny_llama(**options: Any) -> Callable[[], tuple[torch.nn.Module, Callable[[int], Inputs]]]:
    """ExecuTorch's Llama transformer (``examples.models.llama``) at a tiny size, seeded.

    Its ``Llama2Model`` without a checkpoint builds on the meta device and never
    fills the norms' weights or the rotary tables, so its output is NaN; the
    transformer is built here on the CPU instead.
    """

    def build() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
        from executorch.examples.models.llama.llama_transformer import construct_transformer
        from executorch.examples.models.llama.model_args import ModelArgs

        torch.manual_seed(0)
        arguments = ModelArgs(
            dim=64,
            hidden_dim=128,
            n_heads=4,
            n_kv_heads=2,
            n_layers=2,
            vocab_size=256,
            norm_eps=1e-6,
            max_seq_len=128,
            max_context_len=128,
            max_batch_size=1,
            use_kv_cache=False,
            generate_full_logits=True,
            **options,
        )
        return construct_transformer(arguments).eval(), _tokens(256, 32)

    return build


def _efficient_sam() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
    from executorch.examples.models.efficient_sam.efficient_sam_core.efficient_sam import (
        build_efficient_sam,
    )

    torch.manual_seed(0)
    model = build_efficient_sam(encoder_patch_embed_dim=192, encoder_num_heads=3, checkpoint=None)
    # REPEATED_BLOCKS of the image encoder's 12 identical blocks.
    model.image_encoder.blocks = model.image_encoder.blocks[:REPEATED_BLOCKS]

    def make(seed: int) -> Inputs:
        generator = torch.Generator().manual_seed(seed)
        image = torch.randn(1, 3, 1024, 1024, generator=generator)
        points = torch.rand(1, 1, 1, 2, generator=generator) * 1024
        return image, points, torch.ones(1, 1, 1)

    return model.eval(), make


def _mobilebert() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
    from transformers import MobileBertConfig, MobileBertModel

    torch.manual_seed(0)
    # google/mobilebert-uncased's architecture, with REPEATED_BLOCKS of its 24 layers.
    config = MobileBertConfig(num_hidden_layers=REPEATED_BLOCKS)
    model = _Outputs(MobileBertModel(config), "last_hidden_state")
    return model.eval(), _tokens(config.vocab_size, 8)


def _whisper() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
    from executorch.examples.models.whisper.model import WhisperWrapper
    from transformers import WhisperConfig, WhisperModel

    torch.manual_seed(0)
    config = WhisperConfig(  # openai/whisper-base's architecture, REPEATED_BLOCKS of its 6 layers
        d_model=512,
        encoder_layers=REPEATED_BLOCKS,
        decoder_layers=REPEATED_BLOCKS,
        encoder_attention_heads=8,
        decoder_attention_heads=8,
        encoder_ffn_dim=2048,
        decoder_ffn_dim=2048,
    )

    def make(seed: int) -> Inputs:
        generator = torch.Generator().manual_seed(seed)
        start = torch.tensor([[config.decoder_start_token_id]])
        return torch.randn(1, 80, 3000, generator=generator), start

    return WhisperWrapper(WhisperModel(config)).eval(), make


class _RnntPart(torch.nn.Module):
    """Calls one part of torchaudio's RNN-T (``transcribe``, ``predict`` or ``join``)."""

    def __init__(self, rnnt: torch.nn.Module, method: str) -> None:
        super().__init__()
        self.rnnt = rnnt
        self.method = method

    def forward(self, *inputs: torch.Tensor) -> Any:
        """Return ``rnnt.<method>(*inputs)``; ``predict`` starts from no state."""
        state = (None,) if self.method == "predict" else ()
        return getattr(self.rnnt, self.method)(*inputs, *state)


def _emformer(method: str) -> Callable[[], tuple[torch.nn.Module, Callable[[int], Inputs]]]:
    """ExecuTorch's ``emformer_<method>`` example: the same Emformer RNN-T, seeded.

    The example takes the model from torchaudio's pretrained bundle
    (``EMFORMER_RNNT_BASE_LIBRISPEECH``), which downloads; the bundle's model is
    ``emformer_rnnt_base(num_symbols=4097)``. Inputs are the example's, except
    that the predictor gets 4 tokens instead of 128 (its LSTM is unrolled per
    token: 16 tokens took 38 s to lower on 2 cores, 128 three minutes) and the
    joiner 16 frames and 16 tokens instead of 128 each (its output holds
    frames x tokens x 4097 floats: 268 MB at 128 each); and the transcriber
    keeps REPEATED_BLOCKS of its 20 Emformer layers.
    """

    def build() -> tuple[torch.nn.Module, Callable[[int], Inputs]]:
        import torchaudio

        torch.manual_seed(0)
        rnnt = torchaudio.models.emformer_rnnt_base(num_symbols=4097)
        emformer = rnnt.transcriber.transformer
        emformer.emformer_layers = emformer.emformer_layers[:REPEATED_BLOCKS]

        def make(seed: int) -> Inputs:
            generator = torch.Generator().manual_seed(seed)
            if method == "transcribe":
                return torch.randn(1, 128, 80, generator=generator), torch.tensor([128])
            if method == "predict":
                return torch.randint(0, 4097, (1, 4), generator=generator), torch.tensor([4])
            source, target = (torch.rand(1, 16, 1024, generator=generator) for _ in range(2))
            return source, torch.tensor([16]), target, torch.tensor([16])

        return _RnntPart(rnnt, method).eval(), make

    return build


ZOO: list[ZooModel] = [
    ZooModel("torchvision/resnet18", _torchvision("resnet18"), slow=True),
    ZooModel("torchvision/mobilenet_v3_small", _torchvision("mobilenet_v3_small"), slow=True),
    ZooModel("torchvision/efficientnet_b0", _torchvision("efficientnet_b0"), slow=True),
    ZooModel("torchvision/convnext_tiny", _torchvision("convnext_tiny"), slow=True),
    ZooModel("torchvision/vit_b_16", _torchvision("vit_b_16"), slow=True),
    ZooModel("torchvision/swin_t", _torchvision("swin_t"), slow=True),
    # The attention mask, an int64 input, cast to float.
    ZooModel("transformers/bert", _bert, slow=True, cpu_ops=("dim_order_ops::_to_dim_order_copy",)),
    ZooModel("transformers/gpt2", _gpt2, slow=True),
    ZooModel("transformers/llama", _llama, slow=True),
    ZooModel("transformers/whisper_encoder", _whisper_encoder, slow=True),
    *(
        ZooModel(f"executorch/{name}", _example(name))
        for name in ("mul", "linear", "add", "add_mul", "softmax", "conv1d", "resnet8")
    ),
    ZooModel("executorch/lstm", _example("lstm"), slow=True),
    ZooModel("executorch/sdpa", _example("sdpa"), atol=1e-2, rtol=1e-2),  # bfloat16 inputs
    ZooModel("executorch/ds_cnn", _example("ds_cnn", he_init=True)),
    *(
        ZooModel(f"executorch/{name}", _example(name, he_init=True), slow=True)
        for name in ("deep_autoencoder", "mobilenet_v1_025", "mv2_untrained")
    ),
    ZooModel("executorch/resnet50", _torchvision("resnet50"), slow=True),
    ZooModel(
        "executorch/ic3",
        _torchvision("inception_v3", aux_logits=False, init_weights=True),
        atol=1e-3,  # logits up to 10 after 94 convolutions: 5e-4 of float32 rounding
        slow=True,
    ),
    ZooModel(
        "executorch/dl3",
        _torchvision("deeplabv3_resnet50", "segmentation", weights_backbone=None),
        atol=1e-3,  # 3e-4 of float32 rounding through ResNet-50 and dilated convolutions
        slow=True,
    ),
    ZooModel("executorch/w2l", _example("w2l"), slow=True),
    # Integer division of the lengths (an input), exact past 2**24 only on the CPU.
    ZooModel(
        "executorch/emformer_transcribe", _emformer("transcribe"), slow=True, cpu_ops=("aten::div",)
    ),
    ZooModel("executorch/emformer_predict", _emformer("predict"), slow=True),
    ZooModel("executorch/emformer_join", _emformer("join")),
    # int64 point coordinates computed from floats, unbounded.
    ZooModel(
        "executorch/efficient_sam",
        _efficient_sam,
        slow=True,
        cpu_ops=("aten::add", "aten::clamp", "aten::sub", "dim_order_ops::_to_dim_order_copy"),
    ),
    ZooModel("executorch/mobilebert", _mobilebert, slow=True),
    ZooModel("executorch/whisper", _whisper, slow=True),
    ZooModel("executorch/llama", _tiny_llama(), slow=True),
    ZooModel(
        "executorch/qwen3",
        _tiny_llama(
            head_dim=16,
            use_hf_rope=True,
            use_qk_norm=True,
            qk_norm_before_rope=True,
            rope_theta=1e6,
        ),
        slow=True,
    ),
]
"""Every model of the zoo, in test order."""

EXAMPLES_IN_ZOO = {
    "mul", "linear", "add", "add_mul", "softmax", "conv1d", "lstm", "resnet8", "sdpa",
    "deep_autoencoder", "ds_cnn", "mobilenet_v1_025", "mv2_untrained", "mv2", "mv3",
    "resnet18", "resnet50", "vit", "ic3", "dl3", "efficient_sam", "mobilebert", "whisper",
    "w2l", "emformer_transcribe", "emformer_predict", "emformer_join", "llama", "llama2", "qwen3", "smolvlm",
}  # fmt: skip
"""ExecuTorch's example models the zoo covers: ``resnet18``, ``mv3`` and ``vit``
are the torchvision entries (the same torchvision models), ``mv2`` is
``mv2_untrained`` (MobileNetV2 from ExecuTorch's own factory), and ``llama2``
and ``smolvlm`` build the same Llama transformer as ``llama`` (``Llama2Model``)."""

EXAMPLES_LEFT_OUT = {
    "edsr": "needs the torchsr package, and its weights download",
    "ic4": "needs timm, and its weights download",
    "deit_tiny": "needs timm, and its weights download",
    "llama3_2_vision_encoder": "needs torchtune",
    "qwen2_5_1_5b": "needs torchtune (imported by its weight converter); weights download",
    "phi_4_mini": "needs torchtune (imported by its weight converter); weights download",
    "smollm2": "needs torchtune (imported by its weight converter); weights download",
    "llava": "needs accelerate and the 7B model from the hub",
    "yolo26": "needs ultralytics, and its weights download",
}
"""ExecuTorch's example models the zoo does not build, with the reason."""
