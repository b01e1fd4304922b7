"""The LLM benchmark's comparisons: openvino.genai on this backend's IR, and weights stored as compressed."""

import numpy as np
import openvino as ov
import pytest
import torch
from executorch.exir import to_edge_transform_and_lower

from ov_partition import OpenvinoPartitioner
from ov_runtime import lower
from ov_runtime.facade.inspection import delegate_models
from ov_tests.benchmarks import llm
from ov_tests.benchmarks.genai import GenaiPipeline, genai_model
from ov_tests.benchmarks.llm import _model
from ov_tests.benchmarks.nncf_size import nncf_ir_bytes
from ov_tests.llm import eager_greedy, export_decoder, tiny_decoder

PROMPT = list(range(1, 8))

pytestmark = [
    pytest.mark.slow,  # each lowers an LLM: the full tier
    pytest.mark.filterwarnings("ignore:While compiling, we found certain side effects"),
]


@pytest.fixture(scope="module")
def decoder(tmp_path_factory):
    model = tiny_decoder("llama")
    path = tmp_path_factory.mktemp("genai") / "decoder.pte"
    lower(export_decoder(model, max_cache_len=64)).save(str(path))
    return model, path


def test_genai_interface_computes_eager_logits(decoder):
    model, path = decoder
    expected_tokens, expected_logits = eager_greedy(model, PROMPT, 4)
    ((payload, ir),) = delegate_models(path)
    converted = genai_model(ir, payload.inputs)
    assert [next(iter(i.get_names())) for i in converted.inputs] == [
        "input_ids",
        "attention_mask",
        "position_ids",
        "beam_idx",
    ]
    assert [o.get_names() for o in converted.outputs] == [{"logits"}]
    request = (
        ov.Core().compile_model(converted, "CPU", dict(payload.properties)).create_infer_request()
    )
    logits, start = [], 0
    for step in [PROMPT, *([token] for token in expected_tokens[:-1])]:
        positions = np.arange(start, start + len(step), dtype=np.int64)[None]
        outputs = request.infer(
            {
                "input_ids": np.array([step], np.int64),
                "attention_mask": np.ones((1, start + len(step)), np.int64),
                "position_ids": positions,
                "beam_idx": np.zeros(1, np.int32),
            }
        )
        logits.append(torch.from_numpy(outputs["logits"][0, -1].copy()))
        start += len(step)
    torch.testing.assert_close(torch.stack(logits), expected_logits, atol=1e-4, rtol=0)


def test_genai_interface_needs_the_cache_positions(decoder):
    _, path = decoder
    ((_, ir),) = delegate_models(path)
    with pytest.raises(ValueError, match=r"no cache positions \('P'\)"):
        genai_model(ir, "TTTT")


def test_genai_generates_eager_tokens(decoder, tmp_path):
    pytest.importorskip("openvino_genai", reason="the workspace's genai group is not installed")
    model, path = decoder
    ((payload, ir),) = delegate_models(path)
    ov.save_model(genai_model(ir, payload.inputs), tmp_path / "openvino_model.xml")
    pipeline = GenaiPipeline(tmp_path, payload.properties)
    tokens, first, per_token = pipeline.generate(prompt=7, tokens=6)
    assert tokens == eager_greedy(model, PROMPT, 6)[0]
    assert first > 0 and per_token > 0


# ExecuTorch warns of the loss of a mutated buffer's value whether or not it happens.
@pytest.mark.filterwarnings("ignore:Mutation on a buffer in the model is detected")
@pytest.mark.parametrize(("weights", "bits"), [("int8", 8), ("int4", 4)])
def test_tied_embedding_is_stored_once_compressed(weights, bits):
    # The benchmark's model quantizes the tied embedding and output layer alike,
    # per row in int8; the .pte then holds their int8 values once, beside the
    # decoder layers' values at their own width: within 1.1x of the values alone.
    model = _model(1, weights)
    exported = export_decoder(model, max_cache_len=32, max_prompt=4)
    edge = to_edge_transform_and_lower(exported, partitioner=[OpenvinoPartitioner()])
    size = len(edge.to_executorch().buffer)
    embedding = model.model.embed_tokens.weight.numel()
    inner = sum(
        module.weight.numel()
        for name, module in model.named_modules()
        if isinstance(module, torch.nn.Linear) and name != "lm_head"
    )
    assert size <= 1.1 * (embedding + inner * bits / 8)


@pytest.mark.filterwarnings("ignore:Mutation on a buffer in the model is detected")
@pytest.mark.parametrize(("weights", "bits"), [("int8", 8), ("int4", 4)])
def test_nncf_compresses_the_same_weights_to_their_format(weights, bits):
    pytest.importorskip("nncf", reason="the workspace's builtin-openvino group is not installed")
    float_model = _model(1)
    embedding = float_model.model.embed_tokens.weight.numel()
    inner = sum(
        module.weight.numel()
        for name, module in float_model.named_modules()
        if isinstance(module, torch.nn.Linear) and name != "lm_head"
    )
    size = nncf_ir_bytes(float_model, weights, 64)
    # The tied embedding once in int8 and the decoder layers at their width,
    # plus scales, norms and the graph: never the float32 weights.
    values = embedding + inner * bits / 8
    assert values < size <= 1.2 * values


@pytest.mark.filterwarnings("ignore:Mutation on a buffer in the model is detected")
def test_benchmark_reports_each_variants_logits_error_with_the_compile_spec_it_was_given(
    monkeypatch, capsys
):
    # A smoke run of one 8da4w layer with OpenVINO's dynamic quantization asked for:
    # the spec reaches the delegate, and each variant that gives logits has its
    # error to eager's, which stays at the scale of one quantization step.
    monkeypatch.setattr(
        "sys.argv",
        [
            "llm",
            *("--layers", "1", "--tokens", "2", "--rounds", "1", "--no-xnnpack"),
            *("--configs", "8da4w/f32", "--dynamic-quantization", "64"),
        ],
    )
    llm.main()
    out = capsys.readouterr().out
    assert "inference precision f32, dynamic quantization 64" in out
    errors = {
        line[:32].strip(): line.split()[-1]
        for line in out.splitlines()
        if line.startswith(("this backend", "OpenVINO (same IR"))
    }
    assert set(errors) == {"this backend (.pte)", "OpenVINO (same IR, stateful)"}
    assert all(0 < float(error) < 1 for error in errors.values())
