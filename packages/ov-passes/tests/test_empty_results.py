"""Empty results become constants: OpenVINO then computes nothing on empty tensors."""

import torch

from ov_passes import empty_results_as_constants


class Gathers(torch.nn.Module):
    def forward(self, table, x):
        nothing = torch.topk(x, 0)
        return torch.embedding(table, nothing.indices), nothing.values, x + 1


def test_empty_results_become_full_and_what_fed_only_them_goes():
    inputs = (torch.randn(4, 3), torch.arange(5.0))
    module = torch.export.export(Gathers(), inputs).module(check_guards=False)
    assert empty_results_as_constants(module)
    module.recompile()
    targets = [node.target for node in module.graph.nodes if node.op == "call_function"]
    assert torch.ops.aten.topk.default not in targets
    assert torch.ops.aten.embedding.default not in targets
    assert targets.count(torch.ops.aten.full.default) == 2
    for got, expected in zip(module(*inputs), Gathers()(*inputs), strict=True):
        assert got.dtype == expected.dtype
        torch.testing.assert_close(got, expected)


def test_a_graph_without_empty_results_is_left_alone():
    inputs = (torch.randn(4, 3), torch.arange(5.0))

    class Plain(torch.nn.Module):
        def forward(self, table, x):
            return table * 2, x.sum()

    module = torch.export.export(Plain(), inputs).module(check_guards=False)
    assert not empty_results_as_constants(module)


def test_a_result_of_a_data_dependent_size_is_left_alone():
    class Found(torch.nn.Module):
        def forward(self, x):
            return torch.nonzero(x) * 2

    module = torch.export.export(Found(), (torch.tensor([1.0, 0.0]),)).module(check_guards=False)
    assert not empty_results_as_constants(module)


class EmptyBesideDynamic(torch.nn.Module):
    def forward(self, x):
        return x.relu().squeeze(2), x.sum(2), x.exp().unsqueeze(1)


def test_empty_results_beside_a_dynamic_dim_share_one_read_of_its_size():
    x = torch.zeros(16, 0, 1, 4)
    batch = torch.export.Dim("batch", min=2, max=32)
    exported = torch.export.export(EmptyBesideDynamic(), (x,), dynamic_shapes=({0: batch},))
    module = exported.module(check_guards=False)
    assert empty_results_as_constants(module)
    module.recompile()
    targets = [node.target for node in module.graph.nodes if node.op == "call_function"]
    assert targets.count(torch.ops.aten.sym_size.int) == 1
    assert targets.count(torch.ops.aten.full.default) == 3
    for size in (16, 3):
        x = torch.zeros(size, 0, 1, 4)
        got = module(x)
        assert [tuple(t.shape) for t in got] == [(size, 0, 4), (size, 0, 4), (size, 1, 0, 1, 4)]


class EmptyOfAnUnreadSize(torch.nn.Module):
    def forward(self, x, y):
        found = torch.nonzero(y)
        return x.unsqueeze(1).expand(-1, found.shape[0], -1)[:, :, :0] + 1


def test_an_empty_result_of_a_size_no_input_has_adds_no_node():
    inputs = (torch.randn(3, 4), torch.tensor([1.0, 0.0]))
    batch = torch.export.Dim("batch", min=2, max=32)
    exported = torch.export.export(EmptyOfAnUnreadSize(), inputs, dynamic_shapes=({0: batch}, None))
    module = exported.module(check_guards=False)
    nodes = [node.format_node() for node in module.graph.nodes]
    assert not empty_results_as_constants(module)
    assert [node.format_node() for node in module.graph.nodes] == nodes
