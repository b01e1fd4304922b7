import torch

from ov_passes import (
    DEFAULT_PASSES,
    index_select_of_a_scalar_index,
    op_name,
    reductions_over_every_dim,
    slice_bounds_as_tensors,
    view_sizes_from_metadata,
)
from ov_passes.reduction_dims import REDUCTIONS


class SliceView(torch.nn.Module):
    def forward(self, x, y):
        n = y.shape[0]
        return x[:n].view(n, -1)


def exported_module():
    dim = torch.export.Dim("n", min=0, max=4)
    program = torch.export.export(
        SliceView(), (torch.randn(4, 8), torch.zeros(3)), dynamic_shapes=(None, {0: dim})
    )
    return program.module(check_guards=False)


def node(module, name):
    return next(n for n in module.graph.nodes if n.target == name)


def test_symbolic_slice_end_becomes_a_1d_int64_tensor():
    module = exported_module()
    assert slice_bounds_as_tensors(module)
    end = node(module, torch.ops.aten.slice.Tensor).args[3]
    assert end.target == torch.ops.aten.unsqueeze.default and end.args[1] == 0
    scalar = end.args[0]
    assert scalar.target == torch.ops.aten.scalar_tensor.default
    assert scalar.kwargs["dtype"] == torch.int64
    assert scalar.args[0].target == torch.ops.aten.sym_size.int


def test_static_slice_bounds_are_left_alone():
    class Static(torch.nn.Module):
        def forward(self, x):
            return x[1:3]

    module = torch.export.export(Static(), (torch.randn(4),)).module(check_guards=False)
    assert not slice_bounds_as_tensors(module)


def test_view_minus_one_is_filled_from_metadata():
    module = exported_module()
    assert view_sizes_from_metadata(module)
    sizes = node(module, torch.ops.aten.view.default).args[1]
    assert sizes[1] == 8
    assert isinstance(sizes[0], torch.fx.Node)  # the symbolic size stays symbolic
    assert not view_sizes_from_metadata(module)


def test_both_run_by_default():
    assert slice_bounds_as_tensors in DEFAULT_PASSES
    assert view_sizes_from_metadata in DEFAULT_PASSES


def test_reductions_over_an_empty_dim_list_name_every_dim():
    class Reductions(torch.nn.Module):
        def forward(self, x):
            return (
                torch.ops.aten.mean.dim(x, []),
                torch.ops.aten.sum.dim_IntList(x, None),
                torch.amax(x, dim=()),
                torch.ops.aten.mean.dim(x, [1]),
            )

    graph_module = torch.export.export(Reductions(), (torch.randn(2, 3, 4),)).module()
    assert reductions_over_every_dim(graph_module)
    dims = [node.args[1] for node in graph_module.graph.nodes if op_name(node) in REDUCTIONS]
    assert dims == [[0, 1, 2], [0, 1, 2], [0, 1, 2], [1]]
    assert not reductions_over_every_dim(graph_module)


def test_a_0d_index_select_index_becomes_a_vector():
    class Select(torch.nn.Module):
        def forward(self, x, i):
            return torch.index_select(x, 1, i)

    graph_module = torch.export.export(Select(), (torch.randn(2, 3), torch.tensor(1))).module()
    assert index_select_of_a_scalar_index(graph_module)
    graph_module.recompile()
    x = torch.randn(2, 3)
    assert torch.equal(graph_module(x, torch.tensor(2)), x[:, 2:3])
    select = next(n for n in graph_module.graph.nodes if "index_select" in str(n.target))
    assert select.args[2].meta["val"].shape == (1,)
