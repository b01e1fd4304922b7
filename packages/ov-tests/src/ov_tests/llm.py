"""Small decoder-only LLMs with seeded weights, exported along both of ExecuTorch's LLM paths.

- transformers' ExecuTorch integration: ``TorchExportableModuleForDecoderOnlyLM``
  wraps a causal LM with a static KV cache held in buffers; the exported
  method takes ``input_ids`` (``[1, n]``) and ``cache_position`` (``[n]``) and
  returns logits (``[1, n, vocabulary]``).
- ExecuTorch's own Llama (``executorch.examples.models.llama``) with its KV
  cache and the plain SDPA (``use_sdpa_with_kv_cache_op=False``): the method
  takes ``tokens`` (``[1, n]``) and ``input_pos`` (``[1]``, the first
  token's position) and returns the last token's logits (``[1, vocabulary]``).
  The custom-op variant's ``llama::sdpa_with_kv_cache``, ``llama::update_cache``
  and ``llama::custom_sdpa`` are ExecuTorch's own CPU kernels, which OpenVINO
  does not convert.

Exported with a dynamic ``n``, one program serves prefill and decoding.
"""

from __future__ import annotations

from typing import Any

import torch

ARCHITECTURES = ("llama", "qwen2", "qwen3", "phi3", "gemma")
"""The architectures :func:`tiny_decoder` builds."""


def tiny_decoder(architecture: str, seed: int = 0) -> Any:
    """A two-layer causal LM of ``architecture`` (vocabulary 1000, width 64, 4 heads, 2 key-value heads), seeded, in eval mode.

    Raises:
        ValueError: ``architecture`` is not one of :data:`ARCHITECTURES`.
    """
    import transformers

    kinds = {
        "llama": ("LlamaConfig", "LlamaForCausalLM"),
        "qwen2": ("Qwen2Config", "Qwen2ForCausalLM"),
        "qwen3": ("Qwen3Config", "Qwen3ForCausalLM"),
        "phi3": ("Phi3Config", "Phi3ForCausalLM"),
        "gemma": ("GemmaConfig", "GemmaForCausalLM"),
    }
    if architecture not in kinds:
        raise ValueError(f"architecture {architecture!r}; expected one of {ARCHITECTURES}")
    config_name, model_name = kinds[architecture]
    config = getattr(transformers, config_name)(
        vocab_size=1000,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=256,
        pad_token_id=0,  # Phi-3's default (32000) lies past this vocabulary
    )
    torch.manual_seed(seed)
    return getattr(transformers, model_name)(config).eval()


def export_decoder(
    model: Any, max_cache_len: int = 128, max_prompt: int = 64
) -> torch.export.ExportedProgram:
    """Export ``model`` with a static cache of ``max_cache_len`` positions and prompts of up to ``max_prompt`` tokens."""
    from transformers import GenerationConfig
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    model.generation_config = GenerationConfig(  # type: ignore[no-untyped-call]
        use_cache=True,
        cache_implementation="static",
        max_length=max_cache_len,
        cache_config={"batch_size": 1, "max_cache_len": max_cache_len},
    )
    length = torch.export.Dim("length", min=1, max=max_prompt)
    exported: torch.export.ExportedProgram = TorchExportableModuleForDecoderOnlyLM(model).export(
        input_ids=torch.tensor([[1, 2]]),
        cache_position=torch.tensor([0, 1]),
        dynamic_shapes={"input_ids": {1: length}, "cache_position": {0: length}},
    )
    return exported


EXECUTORCH_VARIANTS: dict[str, dict[str, bool]] = {
    "llama": {},
    # Qwen3 as ExecuTorch's Qwen3 recipe configures its Llama: normalized q and k, HF's RoPE.
    "qwen3": {"use_qk_norm": True, "qk_norm_before_rope": True, "use_hf_rope": True},
}
"""The architectures :func:`tiny_executorch_llama` builds, as ``ModelArgs`` settings."""


def tiny_executorch_llama(
    variant: str = "llama", seed: int = 0, max_context: int = 128
) -> torch.nn.Module:
    """ExecuTorch's own Llama, two layers (vocabulary 1000, width 64), with a KV cache of ``max_context`` positions.

    Seeded and in eval mode; built with the plain SDPA, which OpenVINO
    converts, rather than ExecuTorch's custom cache and attention ops.
    ``variant`` is one of :data:`EXECUTORCH_VARIANTS`.

    Raises:
        ValueError: An unknown ``variant``.
    """
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    if variant not in EXECUTORCH_VARIANTS:
        raise ValueError(f"variant {variant!r}; expected one of {sorted(EXECUTORCH_VARIANTS)}")
    args = ModelArgs(
        dim=64,
        n_layers=2,
        n_heads=4,
        n_kv_heads=2,
        vocab_size=1000,
        hidden_dim=128,
        max_seq_len=max_context,
        max_context_len=max_context,
        use_kv_cache=True,
        use_sdpa_with_kv_cache_op=False,
        enable_dynamic_shape=True,
        **EXECUTORCH_VARIANTS[variant],
    )
    torch.manual_seed(seed)
    model: torch.nn.Module = construct_transformer(args).eval()
    return model


def export_executorch_llama(
    model: torch.nn.Module, max_prompt: int = 64
) -> torch.export.ExportedProgram:
    """Export ExecuTorch's Llama as its LLM export does: ``(tokens [1, n], {"input_pos": [1]})``, ``n`` dynamic."""
    length = torch.export.Dim("length", min=1, max=max_prompt)
    return torch.export.export(
        model,
        (torch.tensor([[1, 2]]), {"input_pos": torch.tensor([0])}),
        dynamic_shapes=({1: length}, {"input_pos": None}),
        strict=False,
    )


def executorch_llama_greedy(
    model: torch.nn.Module, prompt_ids: list[int], steps: int
) -> tuple[list[int], torch.Tensor]:
    """Greedy tokens and each step's logits (``[steps, vocabulary]``) from eager calls of ``model`` with its cache.

    ``model`` must be fresh (an empty cache): its cache buffers keep what each call writes.
    """
    ids, logits = list(prompt_ids), []
    with torch.no_grad():
        last = model(torch.tensor([ids]), {"input_pos": torch.tensor([0])})[0]
        while True:
            logits.append(last)
            ids.append(int(last.argmax()))
            if len(logits) == steps:
                break
            position = torch.tensor([len(ids) - 1])
            last = model(torch.tensor([ids[-1:]]), {"input_pos": position})[0]
    return ids[len(prompt_ids) :], torch.stack(logits)


def eager_greedy(model: Any, prompt_ids: list[int], steps: int) -> tuple[list[int], torch.Tensor]:
    """Greedy tokens and each step's last-position logits (``[steps, vocabulary]``), from full-sequence forwards."""
    ids = list(prompt_ids)
    logits = []
    with torch.no_grad():
        for _ in range(steps):
            last = model(torch.tensor([ids]), use_cache=False).logits[0, -1]
            logits.append(last)
            ids.append(int(last.argmax()))
    return ids[len(prompt_ids) :], torch.stack(logits)


def decode_step_bytes(program: torch.export.ExportedProgram) -> int:
    """Bytes a one-token step moves between ExecuTorch and its delegates, and copies on ExecuTorch's CPU.

    ``program`` is the lowered program's top level
    (``LoweredProgram.program.exported_program()``). Counted: each tensor a
    delegate takes or gives, and each buffer write-back (``aten.copy_``),
    with every dynamic length taken as 1. A KV cache copied in and out of a
    delegate counts three times per step; one kept as OpenVINO state not at
    all.
    """
    total = 0
    for node in program.graph.nodes:
        if node.target is torch.ops.higher_order.executorch_call_delegate:
            crossing = [*node.args[1:], *node.users]
        elif node.target is torch.ops.aten.copy_.default:
            crossing = [node.args[1]]
        else:
            continue
        for value in crossing:
            if isinstance(value, torch.fx.Node) and isinstance(value.meta.get("val"), torch.Tensor):
                total += _bytes_at_length_one(value.meta["val"])
    return total


def _bytes_at_length_one(value: torch.Tensor) -> int:
    count = 1
    for dim in value.shape:
        size: object = dim  # a SymInt where the length is dynamic
        if isinstance(size, torch.SymInt):
            expression = size.node.expr
            size = expression.subs(dict.fromkeys(expression.free_symbols, 1))
        count *= int(size)  # type: ignore[call-overload]
    return count * value.element_size()
