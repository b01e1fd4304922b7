import re

import pytest
import torch
from executorch.exir import to_edge
from executorch.exir.backend.compile_spec_schema import CompileSpec

from ov_partition import (
    CompileSpecError,
    MissingKernelWarning,
    OpenvinoPartitioner,
    compile_specs,
    frontend_converts,
)
from ov_spec import BACKEND_ID


def edge_program(model, *inputs):
    return to_edge(torch.export.export(model, inputs)).exported_program()


def tags(program):
    return {
        n.name: n.meta.get("delegation_tag") for n in program.graph.nodes if n.op == "call_function"
    }


class AddSoftmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x + 1, dim=-1)


def test_delegation_spec_uses_the_backend_id_and_the_parsed_specs():
    specs = [CompileSpec("device", b"CPU"), CompileSpec("inference_precision", b"")]
    partitioner = OpenvinoPartitioner(specs)
    assert partitioner.delegation_spec.backend_id == BACKEND_ID
    assert list(partitioner.delegation_spec.compile_specs) == [CompileSpec("device", b"CPU")]


def test_bad_spec_raises_when_the_partitioner_is_built():
    with pytest.raises(CompileSpecError, match="inference_precision"):
        OpenvinoPartitioner([CompileSpec("inference_precision", b"f7")])
    with pytest.raises(CompileSpecError, match="device"):
        compile_specs(device="cpu")


def test_compile_specs_builds_entries_from_keywords():
    specs = compile_specs(device="GPU", inference_precision="f16", cache_dir="/c")
    assert [(s.key, s.value) for s in specs] == [
        ("device", b"GPU"),
        ("inference_precision", b"f16"),
        ("cache_dir", b"/c"),
    ]


def test_supported_nodes_share_one_tag():
    program = edge_program(AddSoftmax(), torch.randn(2, 3))
    result = OpenvinoPartitioner().partition(program)
    node_tags = set(tags(program).values())
    assert len(node_tags) == 1 and None not in node_tags
    assert set(result.partition_tags) == node_tags


def test_unconverted_op_stays_on_cpu_with_a_reason():
    class Trunc(torch.nn.Module):
        def forward(self, x):
            return torch.trunc(x + 1)

    program = edge_program(Trunc(), torch.randn(4))
    partitioner = OpenvinoPartitioner()
    partitioner.partition(program)
    node_tags = tags(program)
    assert node_tags["aten_trunc_default"] is None
    assert node_tags["aten_add_tensor"] is not None
    assert "does not convert aten.trunc.default" in partitioner.rejections["aten_trunc_default"]


def test_float64_stays_on_cpu():
    program = edge_program(AddSoftmax(), torch.randn(2, 3, dtype=torch.float64))
    partitioner = OpenvinoPartitioner()
    partitioner.partition(program)
    assert set(tags(program).values()) == {None}
    assert any("torch.float64" in reason for reason in partitioner.rejections.values())


def test_min_of_only_bool_tensors_stays_on_cpu_but_mixed_maximum_does_not():
    class BoolMin(torch.nn.Module):
        def forward(self, mask, x):
            return mask.amin(), torch.maximum(mask, x)

    program = edge_program(BoolMin(), torch.ones(3, dtype=torch.bool), torch.randn(3))
    partitioner = OpenvinoPartitioner()
    partitioner.partition(program)
    node_tags = tags(program)
    assert node_tags["aten_amin_default"] is None
    assert "refuses bool" in partitioner.rejections["aten_amin_default"]
    assert node_tags["aten_maximum_default"] is not None


def test_frontend_is_asked_about_aten_overloads():
    assert frontend_converts("aten.addmm.default")
    assert not frontend_converts("aten.trunc.default")
    assert not frontend_converts("aten.no_such_op.default")


def test_skip_ops_keeps_named_ops_on_cpu():
    program = edge_program(AddSoftmax(), torch.randn(2, 3))
    partitioner = OpenvinoPartitioner(skip_ops={"aten._softmax.default"})
    partitioner.partition(program)
    node_tags = tags(program)
    assert node_tags["aten__softmax_default"] is None
    assert node_tags["aten_add_tensor"] is not None
    assert "skip_ops" in partitioner.rejections["aten__softmax_default"]


@pytest.mark.parametrize("op", ["sum", "amax", "argmax"])
def test_integer_ops_openvino_computes_in_float32_stay_on_cpu(op):
    functions = {
        "sum": lambda x: x.sum(),
        "amax": lambda x: x.amax(),
        "argmax": lambda x: x.argmax(),
    }

    class Model(torch.nn.Module):
        def forward(self, x):
            return functions[op](x)

    for dtype, delegated in [(torch.int32, False), (torch.float32, True)]:
        program = edge_program(Model(), torch.arange(10).to(dtype))
        partitioner = OpenvinoPartitioner()
        partitioner.partition(program)
        (tag,) = tags(program).values()
        assert (tag is not None) == delegated, (op, dtype)
        if not delegated:
            assert "float32, exact only up to 2**24" in next(iter(partitioner.rejections.values()))


def test_str_spec_values_reach_the_program_as_bytes():
    from executorch.exir.backend.compile_spec_schema import CompileSpec

    partitioner = OpenvinoPartitioner([CompileSpec("device", "GPU"), CompileSpec("cache_dir", "")])
    assert [(s.key, s.value) for s in partitioner.delegation_spec.compile_specs] == [
        ("device", b"GPU")
    ]


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"mode": "max"}, "sum and mean mode only, not max"),
        ({"include_last_offset": True}, "include_last_offset=True"),
    ],
)
def test_embedding_bag_options_the_frontend_refuses_stay_on_cpu(options, reason):
    class Bags(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bags = torch.nn.EmbeddingBag(10, 4, **options)

        def forward(self, indices, offsets):
            return self.bags(indices, offsets) * 2

    program = edge_program(Bags(), torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 4]))
    partitioner = OpenvinoPartitioner()
    # ExecuTorch 1.5.1's runtime has no _embedding_bag kernel: lowering says so.
    with pytest.warns(
        MissingKernelWarning, match=rf"aten::_embedding_bag.out.*{re.escape(reason)}"
    ):
        tagged = tags(partitioner.partition(program).tagged_exported_program)
    bag = next(name for name in tagged if "embedding_bag" in name)
    assert tagged[bag] is None
    assert reason in partitioner.rejections[bag]
    assert any(tag is not None for tag in tagged.values())


class Counted(torch.nn.Module):
    """A float buffer and an int64 counter, both mutated."""

    cache: torch.Tensor
    count: torch.Tensor

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4, 3))
        self.register_buffer("count", torch.tensor(0))

    def forward(self, x, position):
        self.cache.index_copy_(0, position, x)
        self.count.add_(1)
        return self.cache.sum(0) + self.count


def buffer_tags(program):
    buffers = program.graph_signature.inputs_to_buffers
    return {
        buffers[n.name]: n.meta.get("delegation_tag")
        for n in program.graph.nodes
        if n.op == "placeholder" and n.name in buffers
    }


def test_a_mutated_float_buffer_goes_with_its_partition_and_an_int64_one_stays():
    program = edge_program(Counted(), torch.ones(1, 3), torch.tensor([1]))
    OpenvinoPartitioner().partition(program)
    tags = buffer_tags(program)
    assert tags["cache"] is not None
    assert tags["count"] is None  # OpenVINO's CPU plugin keeps no int64 state


def test_a_mutated_buffer_a_cpu_node_writes_stays_with_executorch():
    program = edge_program(Counted(), torch.ones(1, 3), torch.tensor([1]))
    OpenvinoPartitioner(skip_ops={"aten.index_put.default"}).partition(program)
    assert buffer_tags(program)["cache"] is None


class TwoConds(torch.nn.Module):
    def forward(self, x):
        positive = x.sum() > 0
        return (
            torch.cond(positive, lambda x: x + 1, lambda x: x - 1, (x,)),
            torch.cond(positive, lambda x: x * 2, lambda x: x - 3, (x,)),
        )


def test_a_cond_goes_whole_with_its_graphs_unless_a_branch_holds_a_refused_op():
    program = edge_program(TwoConds(), torch.randn(4))
    partitioner = OpenvinoPartitioner(skip_ops={"aten.mul.Tensor"})
    partitioner.partition(program)
    node_tags = tags(program)
    conds = program.graph.find_nodes(op="call_function", target=torch.ops.higher_order.cond)
    assert node_tags[conds[0].name] is not None
    graph_tags = {graph.meta.get("delegation_tag") for graph in conds[0].args[1:3]}
    assert graph_tags == {node_tags[conds[0].name]}
    assert node_tags[conds[1].name] is None
    reason = partitioner.rejections[conds[1].name]
    assert "its graph" in reason and "skip_ops" in reason


def test_a_cat_of_more_tensors_than_the_runtime_takes_stays_on_cpu():
    from ov_partition.op_support import MAX_CAT_INPUTS

    class Wide(torch.nn.Module):
        def forward(self, x):
            return torch.cat([x] * (MAX_CAT_INPUTS + 1)) + 1

    partitioner = OpenvinoPartitioner()
    tagged = tags(
        partitioner.partition(edge_program(Wide(), torch.ones(1, 2))).tagged_exported_program
    )
    cat = next(name for name in tagged if "cat" in name)
    assert tagged[cat] is None
    assert f"cat of {MAX_CAT_INPUTS + 1} tensors" in partitioner.rejections[cat]
    assert any(tag is not None for tag in tagged.values())  # the add is delegated


class Moduli(torch.nn.Module):
    def forward(self, a, b):
        return torch.fmod(a, b) + 1, torch.remainder(a, 3.0)


def test_float_moduli_stay_on_the_cpu():
    program = edge_program(Moduli(), torch.tensor([7.5, -(2.0**31)]), torch.tensor([2.0, 3.0]))
    partitioner = OpenvinoPartitioner()
    partitioner.partition(program)
    node_tags = tags(program)
    assert node_tags["aten_add_tensor"] is not None
    for name in ("aten_fmod_tensor", "aten_remainder_scalar"):
        assert node_tags[name] is None
        assert "large quotients" in partitioner.rejections[name]


class MaximumOfMultiples(torch.nn.Module):
    def forward(self, x):
        return torch.maximum(x * -2, x), torch.maximum(x.float() * 0.5, x.float())


def test_an_integer_maximum_of_a_multiple_stays_on_the_cpu():
    program = edge_program(MaximumOfMultiples(), torch.tensor([2**30 + 1, -7], dtype=torch.int32))
    partitioner = OpenvinoPartitioner()
    partitioner.partition(program)
    node_tags = tags(program)
    assert node_tags["aten_maximum_default"] is None
    assert "PRelu" in partitioner.rejections["aten_maximum_default"]
    assert node_tags["aten_maximum_default_1"] is not None
