"""Whom the fuzzer's report names for a mismatch."""

import torch

from ov_tests.graph_fuzz import check


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
