import numpy as np
import openvino as ov
import pytest
from openvino import opset6, opset13
from openvino.op.util import Variable, VariableInfo

from ov_convert.appended_caches import POSITIONS_INPUT, REFUSAL, append_caches

HEADS, KV_HEADS, LENGTH, DEPTH = 4, 2, 16, 8


def static_cache_attention(extra_state: bool = False) -> ov.Model:
    """One attention step over a static cache, as OpenVINO's frontend converts both LLM exports."""
    query = opset13.parameter([1, HEADS, -1, DEPTH], ov.Type.f32, name="query")
    new = {
        kind: opset13.parameter([1, KV_HEADS, -1, DEPTH], ov.Type.f32, name=kind) for kind in "kv"
    }
    positions = opset13.parameter([-1], ov.Type.i64, name="positions")
    indices = opset13.broadcast(
        opset13.reshape(positions, opset13.constant([1, 1, -1, 1]), special_zero=False),
        opset13.shape_of(new["k"]),
    )
    sinks, expanded = [], []
    for kind in "kv":
        info = VariableInfo()
        info.variable_id, info.data_type = f"{kind}_cache", ov.Type.f32
        info.data_shape = ov.PartialShape([1, KV_HEADS, LENGTH, DEPTH])
        variable = Variable(info)
        read = opset6.read_value(
            opset13.constant(np.zeros((1, KV_HEADS, LENGTH, DEPTH), np.float32)), variable
        )
        write = opset13.scatter_elements_update(read, indices, new[kind], opset13.constant(2))
        sinks.append(opset6.assign(write, variable))
        grouped = opset13.broadcast(
            opset13.unsqueeze(write, opset13.constant(2)),
            opset13.constant([1, KV_HEADS, HEADS // KV_HEADS, LENGTH, DEPTH]),
            broadcast_spec="BIDIRECTIONAL",
        )
        expanded.append(
            opset13.reshape(
                grouped, opset13.constant([1, HEADS, LENGTH, DEPTH]), special_zero=False
            )
        )
    columns = opset13.range(
        opset13.constant(0), opset13.constant(LENGTH), opset13.constant(1), ov.Type.i64
    )
    mask = opset13.less_equal(columns, opset13.unsqueeze(positions, opset13.constant(1)))
    attention = opset13.scaled_dot_product_attention(query, *expanded, mask, causal=False)
    parameters = [query, new["k"], new["v"], positions]
    if extra_state:
        info = VariableInfo()
        info.variable_id, info.data_type, info.data_shape = (
            "counter",
            ov.Type.f32,
            ov.PartialShape([1]),
        )
        counter = Variable(info)
        read = opset6.read_value(opset13.constant(np.zeros(1, np.float32)), counter)
        sinks.append(opset6.assign(opset13.add(read, opset13.constant(np.float32(1))), counter))
    return ov.Model([opset13.result(attention)], sinks, parameters)


def run(model: ov.Model, calls: list[tuple[int, int]], seed: int = 0) -> list[np.ndarray]:
    # OpenVINO keeps a fused cache in u8 by default; float32 here, as lowering asks for.
    properties = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"}
    request = ov.Core().compile_model(model, "CPU", properties).create_infer_request()
    rng, outputs = np.random.default_rng(seed), []
    for first, count in calls:
        inputs = [
            rng.standard_normal((1, HEADS, count, DEPTH), np.float32),
            rng.standard_normal((1, KV_HEADS, count, DEPTH), np.float32),
            rng.standard_normal((1, KV_HEADS, count, DEPTH), np.float32),
            np.arange(first, first + count),
        ]
        outputs.append(request.infer(inputs)[0].copy())
    return outputs


def test_a_static_cache_becomes_one_that_grows_and_attends_as_before():
    static = static_cache_attention()
    grown, count = append_caches(static)
    assert count == 2
    assert POSITIONS_INPUT in grown.get_parameters()[3].get_rt_info()
    assert [
        str(op.get_output_partial_shape(0))
        for op in grown.get_ops()
        if op.get_type_name() == "ReadValue"
    ] == ["[1,2,?,8]"] * 2
    calls = [(0, 5), (5, 1), (6, 3), (9, 1)]
    for before, after in zip(run(static, calls), run(grown, calls), strict=True):
        np.testing.assert_allclose(after, before, atol=1e-5, rtol=0)


@pytest.mark.parametrize("calls", [[(0, 5), (3, 1)], [(0, 5), (6, 1)], [(0, 15), (15, 2)]])
def test_positions_a_grown_cache_cannot_take_fail_the_inference(calls):
    grown, _ = append_caches(static_cache_attention())
    with pytest.raises(RuntimeError, match=REFUSAL):
        run(grown, calls)


def test_a_model_with_another_state_is_left_as_it_is():
    model = static_cache_attention(extra_state=True)
    assert append_caches(model) == (model, 0)
