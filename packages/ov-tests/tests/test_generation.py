"""Decoder-only LLMs exported with their KV cache generate on OpenVINO what eager generates."""

import openvino as ov
import pytest
import torch
from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower
from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
from executorch.runtime import Runtime
from torchao.quantization import IntxWeightOnlyConfig, quantize_
from torchao.quantization.granularity import PerAxis, PerGroup

from ov_convert import FIRST_POSITION_ARGUMENT, POSITIONS_ARGUMENT
from ov_partition import OpenvinoPartitioner, compile_specs
from ov_runtime import generate, inspect_program, load_program, lower, runtime_precisions
from ov_runtime.cli import main
from ov_runtime.exceptions import ExecutionError
from ov_runtime.facade.inspection import delegate_models
from ov_tests.llm import (
    ARCHITECTURES,
    EXECUTORCH_VARIANTS,
    decode_step_bytes,
    eager_greedy,
    executorch_llama_greedy,
    export_decoder,
    export_executorch_llama,
    tiny_decoder,
    tiny_executorch_llama,
)

PROMPT = [1, 17, 400, 23, 9, 311, 52]
CACHE = {"get_max_seq_len": 128}

# transformers' export notes a global its output capturing reads; the export is sound.
pytestmark = [
    pytest.mark.slow,  # each lowers an LLM: the full tier
    pytest.mark.filterwarnings("ignore:While compiling, we found certain side effects"),
    # ExecuTorch's Llama bounds its positions with torch._check_is_size, which torch deprecates.
    pytest.mark.filterwarnings("ignore:_check_is_size will be removed:FutureWarning"),
]


def fed_logits(method, tokens):
    """Each step's last-position logits when PROMPT and then ``tokens[:-1]`` are fed one call at a time."""
    (logits,) = method.execute([torch.tensor([PROMPT]), torch.arange(len(PROMPT))])
    steps = [logits[0, -1]]
    for token in tokens[:-1]:
        position = torch.tensor([len(PROMPT) + len(steps) - 1])
        steps.append(method.execute([torch.tensor([[token]]), position])[0][0, -1])
    return torch.stack(steps)


@pytest.fixture(scope="module", params=ARCHITECTURES[:2])
def decoder(request, tmp_path_factory):
    model = tiny_decoder(request.param)
    path = tmp_path_factory.mktemp(request.param) / "decoder.pte"
    lower(export_decoder(model, max_cache_len=128), constant_methods=CACHE).save(str(path))
    return model, path


def test_greedy_tokens_and_logits_equal_eager_for_32_steps(decoder):
    model, path = decoder
    expected_tokens, expected_logits = eager_greedy(model, PROMPT, 32)
    method = load_program(path).load_method("forward")
    ids, logits = list(PROMPT), []
    (prefill,) = method.execute([torch.tensor([ids]), torch.arange(len(ids))])
    logits.append(prefill[0, -1])
    while len(logits) < 32:
        ids.append(int(logits[-1].argmax()))
        (step,) = method.execute([torch.tensor([ids[-1:]]), torch.tensor([len(ids) - 1])])
        logits.append(step[0, -1])
    torch.testing.assert_close(torch.stack(logits), expected_logits, atol=1e-4, rtol=0)
    assert generate(path, PROMPT, 32).tokens == expected_tokens


@pytest.mark.parametrize("architecture", ARCHITECTURES[2:])
def test_more_architectures_generate_eagers_tokens_and_logits(architecture):
    model = tiny_decoder(architecture)
    expected_tokens, expected_logits = eager_greedy(model, PROMPT, 16)
    method = load_program(lower(export_decoder(model)).buffer).load_method()
    steps = fed_logits(method, expected_tokens)
    torch.testing.assert_close(steps, expected_logits, atol=1e-4, rtol=0)
    assert [int(step.argmax()) for step in steps] == expected_tokens


@pytest.mark.parametrize(
    ("config", "precision"),
    [
        (IntxWeightOnlyConfig(weight_dtype=torch.int8, granularity=PerAxis(0)), "i8"),
        (IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(32)), "i4"),  # type: ignore[attr-defined]
    ],
    ids=["int8", "int4"],
)
def test_weight_only_quantized_decoder_generates_the_quantized_models_tokens(config, precision):
    model = tiny_decoder("llama")
    quantize_(model, config)
    expected_tokens, expected_logits = eager_greedy(model, PROMPT, 8)
    lowered = lower(export_decoder(model))
    method = load_program(lowered.buffer).load_method()
    steps = fed_logits(method, expected_tokens)
    torch.testing.assert_close(steps, expected_logits, atol=1e-4, rtol=0)
    layers = [d.get("FullyConnected", {}) for d in runtime_precisions(lowered)]
    # q, k, v, o, gate, up and down of two layers, and the output layer
    assert sum(layer.get(precision, 0) for layer in layers) == 15


@pytest.mark.filterwarnings("ignore:Mutation on a buffer in the model is detected")
def test_through_executorchs_api_an_8da4w_decoder_computes_the_quantized_models_logits():
    # XNNPACK's LLM recipe: int4 weights in groups, activations quantized per token at run time.
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig

    model = tiny_decoder("llama")
    config = Int8DynamicActivationIntxWeightConfig(
        weight_dtype=torch.int4,  # type: ignore[attr-defined]
        weight_granularity=PerGroup(32),
    )
    quantize_(model, config)
    tokens, expected = eager_greedy(model, PROMPT, 8)
    edge = to_edge_transform_and_lower(
        export_decoder(model, max_cache_len=128), partitioner=[OpenvinoPartitioner()]
    )
    program = edge.to_executorch(
        ExecutorchBackendConfig(passes=[InitializedMutableBufferPass([""])])
    )
    # torchao's ops have no ExecuTorch kernel: all lower; the CPU writes back the counters
    operators = program.executorch_program.execution_plan[0].operators
    assert {op.name for op in operators} == {"aten::copy_"}
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    torch.testing.assert_close(fed_logits(method, tokens), expected, atol=1e-4, rtol=0)
    layers = [d.get("FullyConnected", {}) for d in runtime_precisions(program.buffer)]
    assert sum(layer.get("i4", 0) for layer in layers) == 15


def attention_ops(path):
    """The op types of the program's delegates that compute attention."""
    kinds = {"ScaledDotProductAttention", "Softmax", "ScatterElementsUpdate", "ScatterNDUpdate"}
    return sorted(
        op.get_type_name()
        for _, model in delegate_models(path)
        for op in model.get_ordered_ops()
        if op.get_type_name() in kinds
    )


def assert_cache_fused_with_attention(path, payload, model):
    """Each layer's cache is state of a free length that OpenVINO's CPU plugin fuses with its attention."""
    states = [s for d in inspect_program(path).delegates for s in d.states]
    assert all(s.endswith("f32[1,2,?,16]") for s in states) and len(states) == 4
    # One node per layer, whose extra outputs are the keys and values it keeps.
    compiled = ov.Core().compile_model(model, "CPU", dict(payload.properties))
    fused = [
        op
        for op in compiled.get_runtime_model().get_ops()
        if op.get_rt_info()["layerType"].astype(str) == "ScaledDotProductAttention"
    ]
    assert [op.get_output_size() for op in fused] == [3, 3]


def test_attention_over_the_cache_is_openvinos_own(decoder):
    _, path = decoder
    ((payload, model),) = delegate_models(path)
    # The cache grows by concatenation (no write into a static buffer), its
    # positions are marked for the runtime, and it stays at float32.
    assert attention_ops(path) == ["ScaledDotProductAttention"] * 2
    assert payload.inputs[1] == POSITIONS_ARGUMENT
    assert inspect_program(path).delegates[0].inputs[1] == "KV-cache positions i64[?]"
    assert payload.properties["KV_CACHE_PRECISION"] == "f32"
    assert_cache_fused_with_attention(path, payload, model)


@pytest.mark.parametrize(
    ("first", "count"),
    [(3, 1), (len(PROMPT) + 1, 1), (126, 4)],
    ids=["rewinds", "skips_a_position", "runs_past_the_cache"],
)
def test_positions_other_than_the_next_ones_are_refused(decoder, first, count):
    _, path = decoder
    method = load_program(path).load_method("forward")
    method.execute([torch.tensor([PROMPT]), torch.arange(len(PROMPT))])
    if first + count > 128:  # fill the cache up to where the call starts
        for position in range(len(PROMPT), first):
            method.execute([torch.tensor([[5]]), torch.tensor([position])])
    with pytest.raises(ExecutionError, match="kv_cache_positions_must_follow"):
        method.execute([torch.tensor([[5] * count]), torch.arange(first, first + count)])
    # Starting again at 0 is a new sequence on the same load.
    (logits,) = method.execute([torch.tensor([PROMPT]), torch.arange(len(PROMPT))])
    expected, _ = eager_greedy(decoder[0], PROMPT, 1)
    assert int(logits[0, -1].argmax()) == expected[0]


@pytest.mark.parametrize(("precision", "tolerance"), [("f16", 1e-2), ("u8", 0.5)])
def test_kv_cache_precision_applies_to_the_fused_cache(precision, tolerance):
    model = tiny_decoder("llama")
    tokens, expected = eager_greedy(model, PROMPT, 8)
    program = lower(
        export_decoder(model, max_cache_len=128),
        compile_specs=compile_specs(kv_cache_precision=precision),
    )
    ((payload, _),) = delegate_models(program.buffer)
    assert payload.properties["KV_CACHE_PRECISION"] == precision
    logits = fed_logits(load_program(program.buffer).load_method("forward"), tokens)
    error = float((logits - expected).abs().max())
    assert 1e-6 < error < tolerance  # compressed, so not float32's result, but close


# ExecuTorch warns of the loss of a mutated buffer's value whether or not it happens.
@pytest.mark.filterwarnings("ignore:Mutation on a buffer in the model is detected")
def test_through_executorchs_api_the_decoder_computes_eagers_logits():
    model = tiny_decoder("llama")
    _, expected = eager_greedy(model, PROMPT, 4)
    edge = to_edge_transform_and_lower(
        export_decoder(model, max_cache_len=128), partitioner=[OpenvinoPartitioner()]
    )
    # Keep every mutated buffer's initial value (the zeroed cache, its counters).
    config = ExecutorchBackendConfig(passes=[InitializedMutableBufferPass([""])])
    method = Runtime.get().load_program(edge.to_executorch(config).buffer).load_method("forward")
    tokens = [int(row.argmax()) for row in expected]
    # Twice on one load: the second sequence starts the cache again at position 0.
    for _ in range(2):
        torch.testing.assert_close(fed_logits(method, tokens), expected, atol=1e-4, rtol=0)


def test_a_decode_step_does_not_copy_the_kv_cache():
    model = tiny_decoder("llama")
    moved = {}
    for cache in (64, 256):
        top = lower(export_decoder(model, max_cache_len=cache, max_prompt=32)).program
        graph = top.exported_program().graph
        written = [n.args[0].name for n in graph.nodes if n.target is torch.ops.aten.copy_.default]
        assert not [name for name in written if "cache" in name], written
        moved[cache] = decode_step_bytes(top.exported_program())
    # ids, positions, logits and the int64 position counters: nothing of the cache's size
    assert moved[64] == moved[256] < 4 * 1000 + 256


@pytest.mark.parametrize("length", [1, 7, 64])
def test_one_program_prefills_any_length_then_decodes(decoder, length):
    model, path = decoder
    prompt = torch.randint(0, 1000, (length,), generator=torch.Generator().manual_seed(length))
    expected, _ = eager_greedy(model, prompt.tolist(), 4)
    result = generate(path, prompt.tolist(), 4)
    assert result.tokens == expected
    assert result.prompt_tokens == length


def test_the_generate_command_prints_tokens_and_speeds(decoder, capsys):
    model, path = decoder
    expected, _ = eager_greedy(model, PROMPT, 8)
    ids = ",".join(map(str, PROMPT))
    assert main(["generate", str(path), "--prompt-ids", ids, "--max-new-tokens", "8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "tokens: " + ",".join(map(str, expected))
    assert lines[1].startswith(f"prefill: {len(PROMPT)} tokens in ") and "tokens/s" in lines[1]
    assert lines[2].startswith("decode: 7 tokens in ") and "tokens/s" in lines[2]


LONG = torch.randint(0, 1000, (40,), generator=torch.Generator().manual_seed(40)).tolist()


def test_prompts_one_after_another_on_one_loaded_program_generate_eagers_tokens(decoder):
    # The long prompt leaves cache entries past the short one's positions, which the mask hides.
    model, path = decoder
    program = load_program(path)
    for prompt in (LONG, PROMPT, LONG):
        assert generate(program, prompt, 8).tokens == eager_greedy(model, prompt, 8)[0]


def test_the_generate_command_takes_prompts_in_turn_on_one_load(decoder, capsys):
    model, path = decoder
    prompts = [",".join(map(str, prompt)) for prompt in (LONG, PROMPT)]
    arguments = ["generate", str(path), "--max-new-tokens", "4"]
    assert main([*arguments, "--prompt-ids", prompts[0], "--prompt-ids", prompts[1]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prompt 1:" and lines[4] == "prompt 2:"
    for line, prompt in ((lines[1], LONG), (lines[5], PROMPT)):
        assert line == "tokens: " + ",".join(map(str, eager_greedy(model, prompt, 4)[0]))


def test_generate_refuses_what_it_cannot_do(decoder):
    _, path = decoder
    with pytest.raises(ValueError, match="prompt_ids is empty"):
        generate(path, [], 4)
    with pytest.raises(ValueError, match="max_new_tokens is 0"):
        generate(path, PROMPT, 0)
    # 7 prompt tokens and 122 new ones fit 128 positions: the last is never fed back.
    with pytest.raises(ValueError, match="need 129 cache positions; the program's cache has 128"):
        generate(path, PROMPT, 123)
    assert main(["generate", str(path), "--prompt-ids", "1,x"]) == 2


@pytest.fixture(scope="module", params=sorted(EXECUTORCH_VARIANTS))
def executorch_llama(request, tmp_path_factory):
    model = tiny_executorch_llama(request.param)
    path = tmp_path_factory.mktemp(request.param) / "llama.pte"
    lower(export_executorch_llama(model), constant_methods=CACHE).save(str(path))
    return request.param, path


def test_executorch_llama_generates_eagers_tokens_and_logits(executorch_llama):
    variant, path = executorch_llama
    model = tiny_executorch_llama(variant)
    expected_tokens, expected_logits = executorch_llama_greedy(model, PROMPT, 32)
    method = load_program(path).load_method("forward")
    ids, logits = list(PROMPT), []
    (prefill,) = method.execute([torch.tensor([ids]), torch.tensor([0])])
    logits.append(prefill[0])
    while len(logits) < 32:
        ids.append(int(logits[-1].argmax()))
        (step,) = method.execute([torch.tensor([ids[-1:]]), torch.tensor([len(ids) - 1])])
        logits.append(step[0])
    torch.testing.assert_close(torch.stack(logits), expected_logits, atol=1e-4, rtol=0)
    assert generate(path, PROMPT, 32).tokens == expected_tokens


@pytest.mark.parametrize("length", [1, 7, 64])
def test_executorch_llama_prefills_any_length_then_decodes(executorch_llama, length):
    variant, path = executorch_llama
    prompt = torch.randint(0, 1000, (length,), generator=torch.Generator().manual_seed(length))
    expected, _ = executorch_llama_greedy(tiny_executorch_llama(variant), prompt.tolist(), 4)
    assert generate(path, prompt.tolist(), 4).tokens == expected


def test_executorch_llama_generates_prompts_one_after_another_on_one_load(executorch_llama):
    variant, path = executorch_llama
    program = load_program(path)
    for prompt in (LONG, PROMPT, LONG):
        expected, _ = executorch_llama_greedy(tiny_executorch_llama(variant), prompt, 8)
        assert generate(program, prompt, 8).tokens == expected


def test_executorch_llamas_attention_over_the_cache_is_openvinos_own(executorch_llama):
    _, path = executorch_llama
    # The cache grows by concatenation; the first position, an int ExecuTorch
    # reads on the CPU (input_pos[0]), is marked for the runtime.
    assert attention_ops(path) == ["ScaledDotProductAttention"] * 2
    payload, model = delegate_models(path)[-1]
    assert payload.inputs.count(FIRST_POSITION_ARGUMENT) == 1
    inputs = inspect_program(path).delegates[-1].inputs
    assert inputs.count("first KV-cache position i64[]") == 1
    assert_cache_fused_with_attention(path, payload, model)


@pytest.mark.parametrize("first", [3, len(PROMPT) + 1], ids=["rewinds", "skips_a_position"])
def test_executorch_llama_refuses_positions_other_than_the_next_ones(executorch_llama, first):
    variant, path = executorch_llama
    method = load_program(path).load_method("forward")
    method.execute([torch.tensor([PROMPT]), torch.tensor([0])])
    with pytest.raises(ExecutionError, match="kv_cache_positions_must_follow"):
        method.execute([torch.tensor([[5]]), torch.tensor([first])])
    (logits,) = method.execute([torch.tensor([PROMPT]), torch.tensor([0])])
    expected, _ = executorch_llama_greedy(tiny_executorch_llama(variant), PROMPT, 1)
    assert int(logits[0].argmax()) == expected[0]


@pytest.mark.filterwarnings("ignore:Mutation on a buffer in the model is detected")
def test_through_executorchs_api_executorch_llama_computes_eagers_logits():
    model = tiny_executorch_llama()
    tokens, expected = executorch_llama_greedy(model, PROMPT, 4)
    edge = to_edge_transform_and_lower(
        export_executorch_llama(model), partitioner=[OpenvinoPartitioner()]
    )
    config = ExecutorchBackendConfig(passes=[InitializedMutableBufferPass([""])])
    method = Runtime.get().load_program(edge.to_executorch(config).buffer).load_method("forward")
    for _ in range(2):  # the second sequence starts the cache again at position 0
        (prefill,) = method.execute([torch.tensor([PROMPT]), torch.tensor([0])])
        steps = [prefill[0]]
        for position, token in enumerate(tokens[:-1], start=len(PROMPT)):
            steps.append(method.execute([torch.tensor([[token]]), torch.tensor([position])])[0][0])
        torch.testing.assert_close(torch.stack(steps), expected, atol=1e-4, rtol=0)


def test_executorch_llama_keeps_its_kv_cache_in_openvino(executorch_llama):
    _, path = executorch_llama
    states = [s for d in inspect_program(path).delegates for s in d.states]
    assert sorted(s.split()[0] for s in states) == [
        f"layers.{layer}.attention.kv_cache.{kind}_cache" for layer in (0, 1) for kind in "kv"
    ]
