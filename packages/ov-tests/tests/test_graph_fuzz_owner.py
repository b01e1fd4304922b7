"""Whom the fuzzer's report names for a mismatch, and what it counts as one."""

import math

import torch

from ov_tests.graph_fuzz import check
from ov_tests.graph_fuzz.draw import Graph


class Negated(torch.nn.Module):
    def forward(self, x):
        return -x


def _owner(monkeypatch, executorch_alone):
    x = torch.tensor([1.0, -2.0, 3.0])
    monkeypatch.setattr(check, "_executorch_alone", lambda program, values: executorch_alone)
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


def test_a_mismatch_equal_to_eager_with_subnormals_read_as_0_says_so():
    graph = _one_op("aten.ne.Scalar", "x0, 0", torch.float32, (3,))
    values = [torch.tensor([1e-39, 1.0, 0.0])]
    assert check._subnormal_note(graph, values, [torch.tensor([False, True, False])])
    assert not check._subnormal_note(graph, values, [torch.tensor([True, True, False])])
    assert not check._subnormal_note(graph, [torch.tensor([1.0, 0.0])], [torch.tensor([1, 0])])


def test_floats_computed_from_integers_have_a_float64_reference():
    graph = _one_op("aten.log2.default", "x0", torch.int32, (2,))
    values = [torch.tensor([3, 442469975], dtype=torch.int32)]
    (reference,) = check._float64_references(graph, values, list(graph.module()(*values)))
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
    assert check.differences([torch.tensor([lowest])], [torch.tensor([-math.inf])], [None])
    assert (
        check.differences(
            [torch.tensor([lowest])], [torch.tensor([lowest])], [torch.tensor([-math.inf])]
        )
        == ""
    )
    assert check.differences([torch.tensor([-math.inf])], [torch.tensor([-math.inf])], [None]) == ""
