"""Weight-only and dynamically quantized programs: compressed weights on OpenVINO, float32 results."""

import pytest
import torch
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from torchao.quantization import Int8WeightOnlyConfig, IntxWeightOnlyConfig, quantize_
from torchao.quantization.granularity import PerAxis, PerGroup
from torchao.quantization.pt2e import allow_exported_model_train_eval
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from ov_runtime import (
    compile_specs,
    compiled_delegates,
    inspect_program,
    int8_products_exact,
    load_program,
    runtime_precisions,
)
from ov_tests import check_program

IN, HIDDEN, OUT = 256, 256, 64
INT4 = torch.int4  # type: ignore[attr-defined]  # missing from torch's type stubs
FLOAT_WEIGHT_BYTES = 4 * (IN * HIDDEN + HIDDEN * OUT)


def mlp() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, OUT)
    ).eval()


def inputs(seed: int) -> tuple[torch.Tensor]:
    return (torch.randn(4, IN, generator=torch.Generator().manual_seed(seed)),)


def payload_bytes(lowered) -> int:
    return sum(delegate.payload_bytes for delegate in inspect_program(lowered).delegates)


def fully_connected(lowered) -> dict[str, int]:
    found: dict[str, int] = {}
    for delegate in runtime_precisions(lowered):
        for precision, count in delegate.get("FullyConnected", {}).items():
            found[precision] = found.get(precision, 0) + count
    return found


@pytest.mark.parametrize(
    ("config", "precision", "largest_share"),
    # Of float32's weight bytes: int8 weights take a quarter and int4 an eighth;
    # the rest is scales and the IR's text (f16 weights would take a half).
    [
        (Int8WeightOnlyConfig(), "i8", 0.35),
        (IntxWeightOnlyConfig(weight_dtype=torch.int8, granularity=PerAxis(0)), "i8", 0.35),
        (IntxWeightOnlyConfig(weight_dtype=INT4, granularity=PerGroup(32)), "i4", 0.22),
    ],
    ids=["int8_weight_only", "intx_int8_per_channel", "intx_int4_per_group"],
)
def test_weight_only_programs_keep_compressed_weights_and_float32_results(
    config, precision, largest_share
):
    model = mlp()
    quantize_(model, config)
    outcome = check_program(model, inputs(1), atol=1e-5, more_inputs=[inputs(2)])
    assert fully_connected(outcome.lowered) == {precision: 2}
    assert payload_bytes(outcome.lowered) < largest_share * FLOAT_WEIGHT_BYTES


def test_openvinos_dynamic_quantization_of_activations_is_opt_in():
    # OpenVINO's CPU plugin quantizes this program's activations to int8 by
    # default (groups of 32) where the CPU has VNNI; the float32 default turns
    # that off (tested above).
    model = mlp()
    quantize_(model, Int8WeightOnlyConfig())
    specs = compile_specs(dynamic_quantization_group_size=32)
    outcome = check_program(model, inputs(1), atol=5e-2, compile_specs=specs)
    program = load_program(outcome.lowered.buffer)
    program.load_method("forward")
    assert compiled_delegates()[-1]["DYNAMIC_QUANTIZATION_GROUP_SIZE"] == "32"
    if int8_products_exact():
        with pytest.raises(AssertionError, match=r"max abs difference .* exceeds atol=1e-05"):
            check_program(model, inputs(1), atol=1e-5, compile_specs=specs)


def test_a_dynamically_quantized_linear_runs_int8_weights_and_equals_the_quantized_model():
    captured = torch.export.export(mlp(), inputs(0)).module()
    config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True)
    prepared = prepare_pt2e(captured, XNNPACKQuantizer().set_global(config))
    prepared(*inputs(0))
    model = convert_pt2e(prepared)
    allow_exported_model_train_eval(model)
    # Choosing the activations' scale per call stays on ExecuTorch's kernels:
    # OpenVINO's frontend does not convert choose_qparams.
    cpu_ops = {
        "quantized_decomposed::choose_qparams",
        "quantized_decomposed::quantize_per_tensor",
        "quantized_decomposed::dequantize_per_tensor",
    }
    outcome = check_program(model, inputs(1), atol=1e-5, cpu_ops=cpu_ops, more_inputs=[inputs(2)])
    assert fully_connected(outcome.lowered) == {"i8": 2}


@pytest.mark.parametrize(
    ("weight_dtype", "granularity", "precision"),
    [(INT4, PerGroup(32), "i4"), (torch.int8, PerAxis(0), "i8")],
    ids=["int4_groups", "int8_per_channel"],
)
def test_dynamically_quantized_activations_lower_whole_through_executorchs_api(
    weight_dtype, granularity, precision
):
    # Int8DynamicActivationIntxWeightConfig (XNNPACK's LLM recipe, 8da4w) chooses
    # each token's scale and zero point at run time with torchao's own ops;
    # ExecuTorch 1.5.1 has no kernel for them, so they must lower.
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig

    from ov_runtime import OpenvinoPartitioner

    model = mlp()
    config = Int8DynamicActivationIntxWeightConfig(
        weight_dtype=weight_dtype, weight_granularity=granularity
    )
    quantize_(model, config)
    rows = torch.export.Dim("rows", min=1, max=64)
    exported = torch.export.export(model, inputs(0), dynamic_shapes=({0: rows},))
    edge = to_edge_transform_and_lower(exported, partitioner=[OpenvinoPartitioner()])
    program = edge.to_executorch()
    assert fully_connected(program.buffer) == {precision: 2}
    assert [op.name for op in program.executorch_program.execution_plan[0].operators] == []
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    for seed, rows_now, magnitude in [(1, 4, 1.0), (2, 1, 1e-3), (3, 17, 300.0)]:
        x = torch.randn(rows_now, IN, generator=torch.Generator().manual_seed(seed)) * magnitude
        (got,) = method.execute([x])
        with torch.no_grad():
            want = model(x)
        # the same int8 activations as eager; float32 sums in another order
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5 * magnitude)


def test_dynamically_quantized_activations_take_openvinos_int8_kernels_when_asked():
    # The 8da4w model's int4 layers, with OpenVINO's dynamic quantization asked
    # for through ExecuTorch's API: the CPU plugin requantizes the activations
    # in groups of 32 (docs/quantization.md), so results stay within a few
    # quantization steps of eager's but no longer to 1e-5 where it has VNNI.
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig

    from ov_runtime import OpenvinoPartitioner

    model = mlp()
    config = Int8DynamicActivationIntxWeightConfig(
        weight_dtype=INT4, weight_granularity=PerGroup(32)
    )
    quantize_(model, config)
    exported = torch.export.export(model, inputs(0))
    partitioner = OpenvinoPartitioner(compile_specs(dynamic_quantization_group_size=32))
    program = to_edge_transform_and_lower(exported, partitioner=[partitioner]).to_executorch()
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    assert compiled_delegates()[-1]["DYNAMIC_QUANTIZATION_GROUP_SIZE"] == "32"
    (got,) = method.execute(list(inputs(1)))
    with torch.no_grad():
        want = model(*inputs(1))
    scale = float(want.abs().max())
    torch.testing.assert_close(got, want, rtol=0, atol=2e-2 * scale)
    if int8_products_exact():
        assert float((got - want).abs().max()) > 1e-5 * scale
