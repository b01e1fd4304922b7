import pytest
import torch

from ov_passes import drop_no_op_aliases


class Views(torch.nn.Module):
    def __init__(self, view):
        super().__init__()
        self.view = view

    def forward(self, x):
        return self.view(x) + 1


def targets(view, x):
    module = torch.export.export(Views(view), (x,)).module(check_guards=False)
    changed = drop_no_op_aliases(module)
    called = [str(n.target) for n in module.graph.nodes if n.op == "call_function"]
    return changed, called, module


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x.transpose(0, 0),
        lambda x: x.transpose(-1, 1),
        lambda x: x.permute(0, 1),
        lambda x: x.view(2, 3),
        lambda x: x.reshape(2, 3),
        lambda x: x.expand(2, 3),
        lambda x: x.clone(),
        lambda x: torch.ops.aten.alias(x),
    ],
    ids=[
        "transpose_0_0",
        "transpose_-1_1",
        "permute",
        "view",
        "reshape",
        "expand",
        "clone",
        "alias",
    ],
)
def test_views_and_copies_that_change_nothing_are_dropped(view):
    x = torch.randn(2, 3)
    changed, called, module = targets(view, x)
    assert changed
    assert called == ["aten.add.Tensor"]
    assert torch.equal(module(x), view(x) + 1)


@pytest.mark.parametrize(
    ("view", "shape"),
    [
        (lambda x: x.transpose(0, 1), (2, 3)),
        (lambda x: x.permute(1, 0), (2, 3)),
        (lambda x: x.view(3, 2), (2, 3)),
        (lambda x: x.expand(4, 2, 3), (2, 3)),
        (lambda x: x.clone(memory_format=torch.channels_last), (1, 2, 3, 3)),
    ],
    ids=["transpose", "permute", "view", "expand", "clone_to_channels_last"],
)
def test_views_and_copies_that_change_shape_or_layout_stay(view, shape):
    changed, called, _ = targets(view, torch.randn(shape))
    assert not changed, called
    assert len(called) == 2
