"""A node OpenVINO's converter refuses stays on the CPU; the rest of its region is still delegated."""

import pytest
import torch

from ov_partition import MissingKernelWarning, op_support
from ov_runtime import lower
from ov_tests.pipeline import check_program, delegate_ids


class VarianceInTheMiddle(torch.nn.Module):
    """A linear layer, a variance with correction=2, and more delegated ops after it.

    OpenVINO 2026.4's frontend refuses ``aten.var.correction`` with a
    correction other than 0 or 1 ("Unexpected value of correction"), although
    its op table lists ``aten.var.correction``.
    """

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = torch.tanh(self.linear(x))
        spread = torch.var(y, dim=None, correction=2)
        return torch.relu(y * spread + 1)


def test_a_refused_node_mid_region_stays_on_the_cpu_and_the_program_equals_eager():
    x = torch.randn(4, 8)
    outcome = check_program(
        VarianceInTheMiddle(),
        (x,),
        atol=1e-6,
        rtol=1e-6,
        cpu_ops={"aten::var"},
        more_inputs=[(x * 3 - 1,)],
    )
    lowered = outcome.lowered
    assert lowered.rejections == {
        "aten_var_correction": "OpenVINO's converter refused it: "
        "[PyTorch Frontend] Unexpected value of correction."
    }
    # The ops before and after the variance run in two delegates.
    assert len(delegate_ids(lowered)) == 2
    assert lowered.cpu_nodes == 1
    assert not torch.equal(outcome.outputs[0][0], outcome.outputs[1][0])


def test_an_option_refused_up_front_is_also_caught_by_the_trial(monkeypatch):
    # Without the partitioner's check on embedding_bag's mode, the trial lowering
    # still leaves the node on the CPU, with the frontend's own reason.
    checks = tuple(c for c in op_support.CHECKS if c is not op_support._check_embedding_bag_options)
    monkeypatch.setattr(op_support, "CHECKS", checks)

    class MaxBag(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bag = torch.nn.EmbeddingBag(10, 4, mode="max")
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, indices, offsets):
            return self.linear(self.bag(indices, offsets) + 1) * 2

    with pytest.warns(MissingKernelWarning, match="_embedding_bag"):
        lowered = lower(MaxBag(), (torch.tensor([1, 2, 3, 4]), torch.tensor([0, 2])))
    assert lowered.rejections == {
        "aten__embedding_bag_default": "OpenVINO's converter refused it: [PyTorch Frontend] "
        "Only sum and mean mode supported for aten::embedding_bag translation",
        "getitem": "unpacks the output of aten__embedding_bag_default, which stays on the CPU",
    }
    assert len(delegate_ids(lowered)) == 1


def test_an_op_left_on_the_cpu_without_an_executorch_kernel_is_named_at_lowering():
    from executorch.exir import to_edge_transform_and_lower

    from ov_runtime import OpenvinoPartitioner

    class ScatterMean(torch.nn.Module):
        def forward(self, x, index, source):
            return x.scatter_reduce(0, index, source, "mean", include_self=False) + 1

    inputs = (torch.zeros(4, dtype=torch.int32), torch.tensor([0, 1, 1, 3]), torch.arange(4) - 2)
    exported = torch.export.export(ScatterMean(), (*inputs[:2], inputs[2].int()))
    with pytest.warns(MissingKernelWarning) as caught:
        to_edge_transform_and_lower(exported, partitioner=[OpenvinoPartitioner()])
    (warning,) = [w for w in caught if w.category is MissingKernelWarning]
    assert "aten::scatter_reduce.two_out" in str(warning.message)
    assert "truncates an integer mean toward zero" in str(warning.message)
