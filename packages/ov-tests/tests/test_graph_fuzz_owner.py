"""Whom the fuzzer's report names for a mismatch, and what it counts as one."""

import math

import torch

from ov_tests.graph_fuzz import check, compare
from ov_tests.graph_fuzz.draw import Graph


class Negated(torch.nn.Module):
    def forward(self, x):
        return -x


def _owner(monkeypatch, executorch_alone):
    x = torch.tensor([1.0, -2.0, 3.0])
    monkeypatch.setattr(check, "executorch_alone", lambda program, values: executorch_alone)
    program = torch.export.export(Negated(), (x,))
    return check._owner(program, [[x]], [[-x]], 0, [None])


def test_a_graph_executorch_cannot_run_alone_is_not_blamed_on_its_kernels(monkeypatch):
    # Before, 13 of 33 mismatches were named ExecuTorch's because to_edge alone refused their graph.
    assert _owner(monkeypatch, None) == "backend"


def test_a_graph_executorch_computes_wrong_alone_is_its_kernels(monkeypatch):
    assert _owner(monkeypatch, [torch.zeros(3)]) == "executorch"


def _one_op(op, arguments, dtype, shape):
    return Graph(
        inputs=[("x0", dtype, shape)], lines=[f"v0 = {op}({arguments})"], outputs=["v0"], ops=[op]
    )


def test_a_mismatch_equal_to_eager_with_subnormal_inputs_read_as_0_is_flushing():
    graph = _one_op("aten.ne.Scalar", "x0, 0", torch.float32, (3,))
    values = [torch.tensor([1e-39, 1.0, 0.0])]
    assert compare.equals_flushing_eager(graph, values, [torch.tensor([False, True, False])])
    assert not compare.equals_flushing_eager(graph, values, [torch.tensor([False, False, False])])


def test_a_mismatch_equal_to_eager_with_subnormal_results_flushed_is_flushing():
    # Graph 626 of seed 0: exp(-100) is a subnormal that OpenVINO gives as 0, so nonzero finds none.
    graph = Graph(
        inputs=[("x0", torch.int8, (2,))],
        lines=["v0 = aten.exp.default(x0)", "v1 = aten.nonzero.default(v0)"],
        outputs=["v1"],
        ops=["aten.exp.default", "aten.nonzero.default"],
    )
    values = [torch.tensor([-100, 1], dtype=torch.int8)]
    assert graph.module()(*values)[0].shape == (2, 1)
    assert compare.equals_flushing_eager(graph, values, [torch.tensor([[1]])])
    assert not compare.equals_flushing_eager(graph, values, [torch.tensor([[0]])])
    # Eager is left computing subnormals as before.
    assert torch.exp(torch.tensor(-100.0)) > 0


def test_a_half_chain_computed_in_float32_with_subnormals_flushed_is_flushing():
    # Graph 1,870 of seed 0: eager's bfloat16 erf gives 0 for tiny values; OpenVINO computes
    # it in float32, with the subnormal input read as 0 and the normal one kept.
    graph = Graph(
        inputs=[("x0", torch.bfloat16, (3,))],
        lines=["v0 = aten.erf.default(x0)", "v1 = aten.nonzero.default(v0)"],
        outputs=["v1"],
        ops=["aten.erf.default", "aten.nonzero.default"],
    )
    values = [torch.tensor([2.9e-39, -1.1754943508222875e-38, 0.0], dtype=torch.bfloat16)]
    assert graph.module()(*values)[0].shape == (0, 1)
    assert compare.equals_flushing_eager(graph, values, [torch.tensor([[1]])])
    assert not compare.equals_flushing_eager(graph, values, [torch.tensor([[0], [1]])])


def test_floats_computed_from_integers_have_a_float64_reference():
    graph = _one_op("aten.log2.default", "x0", torch.int32, (2,))
    values = [torch.tensor([3, 442469975], dtype=torch.int32)]
    (reference,) = compare.float64_references(graph, values, list(graph.module()(*values)))
    assert reference is not None and reference.dtype == torch.float32
    assert torch.equal(reference, torch.log2(values[0].double()).float())
    assert torch.get_default_dtype() == torch.float32


class MinimumOfNonzero(torch.nn.Module):
    def forward(self, x, y):
        return torch.minimum(torch.nonzero(x), y)


def test_values_the_exported_program_refuses_are_not_a_mismatch():
    # Graph 3,011: export asserted 5 nonzero elements, where eager broadcasts 1 too.
    x, y = torch.ones(5, dtype=torch.bool), torch.zeros(3, 5, 0, dtype=torch.int32)
    program = torch.export.export(MinimumOfNonzero(), (x, y))
    one = torch.tensor([True, False, False, False, False])
    assert MinimumOfNonzero()(one, y).shape == (3, 5, 0)
    assert "u0" in check._exported_refuses(program, [one, y])
    assert check._exported_refuses(program, [x, y]) == ""


def test_an_infinite_eager_value_matches_only_itself():
    # A relative tolerance of inf let the lowest float pass for -inf (a max pooling of -inf).
    lowest = torch.finfo(torch.float32).min
    assert compare.differences([torch.tensor([lowest])], [torch.tensor([-math.inf])], [None])
    assert (
        compare.differences(
            [torch.tensor([lowest])], [torch.tensor([lowest])], [torch.tensor([-math.inf])]
        )
        == ""
    )
    assert (
        compare.differences([torch.tensor([-math.inf])], [torch.tensor([-math.inf])], [None]) == ""
    )


class SqueezedNonzero(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aten.squeeze.dims(torch.nonzero(x), [0, 1])


def test_an_output_whose_rank_export_fixed_otherwise_is_skipped():
    # Graph 1,254 of seed 0: export takes nonzero's count as not 1, so the program's squeeze
    # keeps dim 0, where eager's drops it for one nonzero element.
    graph = Graph(
        inputs=[("x0", torch.bool, (4,))],
        lines=["v0 = aten.nonzero.default(x0)", "v1 = aten.squeeze.dims(v0, [0, 1])"],
        outputs=["v1"],
        ops=["aten.nonzero.default", "aten.squeeze.dims"],
    )
    outcome = check.check_graph(graph, [torch.tensor([False, True, False, False])], 0)
    assert outcome.status == "skipped"
    assert "export fixed output 0 at 1 dims" in outcome.detail


def test_openvino_alone_computes_in_float32_as_this_backend_does():
    # The CPU plugin's own default is bf16 on a CPU with AVX512-BF16: a float32 product of
    # random matrices came out bf16-rounded, and a mismatch was named this backend's.
    generator = torch.Generator().manual_seed(0)
    a, b = torch.randn(16, 64, generator=generator), torch.randn(64, 8, generator=generator)
    program = torch.export.export(MatrixProduct(), (a, b))
    expected = [torch.mm(a, b)]
    own = check._openvino_own(program, [[a, b]], [expected])
    assert own is not None
    assert not compare.differences(own[0], expected, [None])


class MatrixProduct(torch.nn.Module):
    def forward(self, a, b):
        return torch.mm(a, b)
