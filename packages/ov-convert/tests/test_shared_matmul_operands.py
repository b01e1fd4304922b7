"""A weight read both transposed and not by two MatMuls computes what eager does."""

import numpy as np
import openvino as ov
import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime
from openvino import opset13

import ov_runtime  # noqa: F401  (registers the backend for executorch.runtime)
from ov_convert.shared_matmul_operands import align_matmul_transposes
from ov_partition import OpenvinoPartitioner


class LinearThenWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(4, 4, bias=False)

    def forward(self, x):
        return torch.relu(self.linear(x)) @ self.linear.weight


class BackToBack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.weight = torch.nn.Parameter(torch.randn(2, 8, 8))

    def forward(self, x):
        return torch.bmm(torch.bmm(x, self.weight.transpose(1, 2)), self.weight)


@pytest.mark.parametrize(
    ("model", "x"),
    [(LinearThenWeight(), torch.randn(1, 4)), (BackToBack(), torch.randn(2, 3, 8))],
    ids=["linear-then-weight", "back-to-back"],
)
def test_a_weight_read_transposed_and_not_gives_eagers_result(model, x):
    exported = torch.export.export(model, (x,))
    edge = to_edge_transform_and_lower(exported, partitioner=[OpenvinoPartitioner()])
    program = Runtime.get().load_program(edge.to_executorch().buffer)
    output = program.load_method("forward").execute([x])[0]
    torch.testing.assert_close(output, model(x).detach(), rtol=1e-5, atol=1e-5)


def test_only_the_untransposed_reader_gets_a_transposed_copy():
    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = opset13.parameter([1, 3], np.float32)
    constant = opset13.constant(weight)
    first = opset13.matmul(x, constant, False, True)  # [1, 2]
    second = opset13.matmul(first, constant, False, False)  # [1, 3]
    model = ov.Model([second], [x])
    assert align_matmul_transposes(model) == 1
    matmuls = [op for op in model.get_ordered_ops() if op.get_type_name() == "MatMul"]
    assert all(op.get_attributes()["transpose_b"] for op in matmuls)
    copy = matmuls[1].input_value(1).get_node()
    assert copy is not constant.output(0).get_node()
    np.testing.assert_array_equal(copy.get_data(), weight.T)
    assert align_matmul_transposes(model) == 0


def test_a_compressed_weight_read_both_ways_computes_both_products():
    # int8 values, their Convert and per-row scale: the form OpenVINO keeps compressed.
    rng = np.random.default_rng(0)
    values = rng.integers(-100, 100, (8, 8)).astype(np.int8)
    scales = np.full((8, 1), 0.01, np.float32)
    x = rng.standard_normal((1, 8)).astype(np.float32)
    parameter = opset13.parameter([1, 8], np.float32)
    weight = opset13.multiply(
        opset13.convert(opset13.constant(values), ov.Type.f32), opset13.constant(scales)
    )
    transposed = opset13.matmul(parameter, weight, False, True)
    model = ov.Model([opset13.matmul(transposed, weight, False, False)], [parameter])
    assert align_matmul_transposes(model) == 1
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    dequantized = values.astype(np.float32) * scales
    np.testing.assert_allclose(compiled([x])[0], x @ dequantized.T @ dequantized, rtol=1e-5)
