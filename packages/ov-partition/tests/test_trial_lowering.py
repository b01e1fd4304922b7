"""The partitioner's trial lowering, with stand-in backends: which node a refusal leaves on the CPU."""

import logging
import operator
from typing import ClassVar, cast

import pytest
import torch
from executorch.exir import to_edge
from executorch.exir.program._fake_program import get_fake_program
from torch._subclasses.fake_tensor import FakeTensor
from torch.export import ExportedProgram

from ov_partition import OpenvinoPartitioner, trial_lowering
from ov_partition import partitioner as partitioner_module
from ov_partition.trial_lowering import (
    bisect_refusal,
    converter_message,
    refused_node,
    trial_lower,
)

# What OpenVINO 2026.4's PyTorch frontend raised for embedding_bag in max mode,
# followed by the failure of the node after it, which got no input.
FRONTEND_REPORT = """Check 'false' failed at src/frontends/common_translators/src/unconverted_ops_report.cpp:151:
FrontEnd API failed with OpConversionFailure:
Model wasn't fully converted. Failed operations detailed log:
-- aten._embedding_bag.default with a message:
Exception happened during conversion of operation aten__embedding_bag_default/aten._embedding_bag.default with schema NONE
Check '(mode <= 1)' failed at src/frontends/pytorch/src/op/embedding_bag.cpp:27:
FrontEnd API failed with OpConversionFailure:
[PyTorch Frontend] Only sum and mean mode supported for aten::embedding_bag translation

-- aten.addmm.default with a message:
Exception happened during conversion of operation aten_addmm_default/aten.addmm.default with schema NONE
Scalars are not supported as MatMul inputs.

Summary:
-- Conversion is failed for: aten._embedding_bag.default, aten.addmm.default
"""


def nodes_named(*names):
    graph = torch.fx.Graph()
    nodes = [graph.placeholder(name) for name in names]
    return nodes


def test_the_first_named_node_in_graph_order_is_blamed_with_its_own_message():
    error = RuntimeError(FRONTEND_REPORT)
    partition = nodes_named("aten_add_tensor", "aten__embedding_bag_default", "aten_addmm_default")
    node = refused_node(error, partition)
    assert node is partition[1]
    assert converter_message(error, node) == (
        "[PyTorch Frontend] Only sum and mean mode supported for aten::embedding_bag translation"
    )


def test_a_report_that_names_no_node_of_the_partition_blames_none():
    error = RuntimeError("Exception from src/core/node.cpp:1: something/else failed")
    assert refused_node(error, nodes_named("aten_add_tensor")) is None
    long = RuntimeError("x" * 1000)
    assert len(converter_message(long, None)) == 400


class Chain(torch.nn.Module):
    """Four ops in a row: one partition of four nodes."""

    def forward(self, x):
        return torch.relu(torch.sin(x + x) * x)


def chain_program():
    return to_edge(torch.export.export(Chain(), (torch.randn(3),))).exported_program()


def delegated(program):
    return {
        node.name
        for node in program.graph.nodes
        if node.op == "call_function" and node.meta.get("delegation_tag")
    }


class Refusing:
    """Stands in for trial_lower: refuses the nodes in ``names`` while any is in a partition."""

    def __init__(self, names, *, named=True):
        self.names = set(names)
        self.named = named
        self.calls = 0

    def __call__(self, program, partitions, compile_specs, backend, weights=None):
        self.calls += 1
        errors = {}
        for index, partition in enumerate(partitions):
            refused = sorted(self.names & set(partition))
            if refused:
                name = f"{refused[0]}/aten.op" if self.named else "an/unnamed node"
                errors[index] = RuntimeError(f"conversion of operation {name} failed: no")
        return errors


def use(monkeypatch, trial):
    """Make ``trial`` stand in for trial_lower, in the partitioner and in the bisection."""
    monkeypatch.setattr(partitioner_module, "trial_lower", trial)
    monkeypatch.setattr(trial_lowering, "trial_lower", trial)


@pytest.fixture
def backend(monkeypatch):
    monkeypatch.setattr(partitioner_module, "registered_backend", lambda: object)


def test_a_refused_node_stays_on_the_cpu_and_the_rest_is_delegated(monkeypatch, backend, caplog):
    refusing = Refusing({"aten_mul_tensor"})
    use(monkeypatch, refusing)
    program = chain_program()
    partitioner = OpenvinoPartitioner()
    with caplog.at_level(logging.WARNING):
        result = partitioner.partition(program)
    assert delegated(program) == {"aten_add_tensor", "aten_sin_default", "aten_relu_default"}
    assert len(result.partition_tags) == 2
    assert partitioner.rejections == {
        "aten_mul_tensor": "OpenVINO's converter refused it: conversion of operation "
        "aten_mul_tensor/aten.op failed: no"
    }
    assert (
        "node aten_mul_tensor stays on the CPU and the rest is partitioned again (round 1 of 8)"
        in caplog.text
    )
    # Round 2 tries only the two new partitions; neither fails.
    assert refusing.calls == 2


def test_a_report_that_names_no_node_is_bisected_down_to_the_node_from_which_it_fails(
    monkeypatch, backend, caplog
):
    refusing = Refusing({"aten_sin_default"}, named=False)
    use(monkeypatch, refusing)
    program = chain_program()
    partitioner = OpenvinoPartitioner()
    with caplog.at_level(logging.WARNING):
        result = partitioner.partition(program)
    assert delegated(program) == {"aten_add_tensor", "aten_mul_tensor", "aten_relu_default"}
    assert len(result.partition_tags) == 2
    assert partitioner.rejections == {
        "aten_sin_default": "OpenVINO's converter failed on its partition from it on (found by "
        "bisection): conversion of operation an/unnamed node failed: no"
    }
    assert "node aten_sin_default stays on the CPU" in caplog.text
    # The whole partition, prefixes [add, sin] and [add], then the two new partitions.
    assert refusing.calls == 4


@pytest.mark.parametrize("refused", range(7))
def test_bisection_blames_the_first_node_whose_prefix_fails(monkeypatch, refused):
    partition = nodes_named(*(f"node_{i}" for i in range(7)))
    tried = []

    def trial(program, partitions, compile_specs, backend):
        (prefix,) = partitions
        tried.append(len(prefix))
        return {0: RuntimeError(f"fails at {len(prefix)}")} if len(prefix) > refused else {}

    monkeypatch.setattr(trial_lowering, "trial_lower", trial)
    # The stand-in never reads the program.
    program = cast("ExportedProgram", None)
    node, error = bisect_refusal(program, partition, RuntimeError("whole"), [], object)
    assert node is partition[refused]
    assert str(error) == ("whole" if refused == 6 else f"fails at {refused + 1}")
    assert len(tried) <= 3


def test_retries_are_bounded(monkeypatch, backend):
    # Every node is refused on its own: after MAX_TRIAL_ROUNDS rounds the rest goes whole.
    monkeypatch.setattr(partitioner_module, "MAX_TRIAL_ROUNDS", 2)
    refusing = Refusing(
        {"aten_add_tensor", "aten_sin_default", "aten_mul_tensor", "aten_relu_default"}
    )
    use(monkeypatch, refusing)
    program = chain_program()
    partitioner = OpenvinoPartitioner()
    partitioner.partition(program)
    assert delegated(program) == set()
    assert refusing.calls == 3
    reasons = sorted(partitioner.rejections.values())
    assert sum("converter refused it" in r for r in reasons) == 2
    assert sum("could not convert its partition" in r for r in reasons) == 2


def test_without_a_registered_backend_nothing_is_tried_and_a_warning_says_so(monkeypatch, caplog):
    monkeypatch.setattr(partitioner_module, "registered_backend", lambda: None)
    use(monkeypatch, Refusing({"aten_mul_tensor"}))
    program = chain_program()
    with caplog.at_level(logging.WARNING):
        OpenvinoPartitioner().partition(program)
    assert len(delegated(program)) == 4
    assert "partitions are not converted on trial" in caplog.text
    assert "import OpenvinoPartitioner from ov_runtime" in caplog.text


def test_trial_lower_hands_each_partition_to_preprocess_with_known_or_zero_weights_and_leaves_the_program():
    class Linear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(3, 2)

        def forward(self, x):
            return torch.relu(self.linear(x)) + 1

    seen = []

    class Recorder:
        @staticmethod
        def preprocess(program, compile_specs):
            seen.append((program, compile_specs))
            if any(node.name == "aten_add_tensor" for node in program.graph.nodes):
                raise RuntimeError("no add today")

    real = to_edge(torch.export.export(Linear(), (torch.randn(4, 3),))).exported_program()
    # What ExecuTorch hands a partitioner: FakeTensors for weights.
    program = get_fake_program(real)
    before = str(program.graph)
    names = [node.name for node in program.graph.nodes if node.op == "call_function"]
    first = [name for name in names if name != "aten_add_tensor"]
    errors = trial_lower(program, [first, ["aten_add_tensor"]], ["specs"], Recorder)
    assert list(errors) == [1] and str(errors[1]) == "no add today"
    assert str(program.graph) == before
    assert not any(node.meta.get("delegation_tag") for node in program.graph.nodes)
    partition, specs = seen[0]
    assert specs == ["specs"]
    weights = partition.state_dict
    assert {(2, 3), (2,)} <= {tuple(w.shape) for w in weights.values()}
    for name, weight in weights.items():
        # PyTorch's fake tensors carry the values of weights this small; else zeros.
        constant = program.state_dict[name].constant
        expected = torch.zeros_like(weight) if constant is None else constant
        assert not isinstance(weight, FakeTensor) and torch.equal(weight, expected)


class Converting:
    """A backend whose convert step records the weights of each partition it converts."""

    seen: ClassVar[list[dict[str, torch.Tensor]]] = []

    @staticmethod
    def convert(program, compile_specs):
        Converting.seen.append(dict(program.state_dict))

    @staticmethod
    def preprocess(program, compile_specs):
        raise AssertionError("the trial calls convert")


def test_the_trial_converts_with_the_weights_ops_to_not_decompose_saw(monkeypatch):
    monkeypatch.setattr(Converting, "seen", [])
    monkeypatch.setattr(partitioner_module, "registered_backend", lambda: Converting)

    real = to_edge(torch.export.export(torch.nn.Linear(3, 2), (torch.randn(4, 3),)))
    program = real.exported_program()
    partitioner = OpenvinoPartitioner()
    partitioner.ops_to_not_decompose(program)
    partitioner.partition(get_fake_program(program))
    (weights,) = Converting.seen
    assert weights.keys() == program.state_dict.keys()
    for name, weight in weights.items():
        assert weight.data_ptr() == program.state_dict[name].data_ptr()  # shared, not copied


def test_weights_of_another_shape_or_not_seen_are_converted_as_zeros(monkeypatch):
    monkeypatch.setattr(Converting, "seen", [])
    real = to_edge(torch.export.export(torch.nn.Linear(3, 2), (torch.randn(4, 3),)))
    program = get_fake_program(real.exported_program())
    names = [node.name for node in program.graph.nodes if node.op == "call_function"]
    other_shape = {"weight": torch.ones(3, 2)}
    assert trial_lower(program, [names], [], Converting, other_shape) == {}
    (weights,) = Converting.seen
    assert {"weight", "bias"} <= weights.keys()
    assert all(not weight.any() for weight in weights.values())


def test_trial_lower_prefers_the_backend_convert_step_to_preprocess():
    calls = []

    class Converting:
        @staticmethod
        def convert(program, compile_specs):
            calls.append("convert")

        @staticmethod
        def preprocess(program, compile_specs):
            calls.append("preprocess")

    program = get_fake_program(chain_program())
    names = [node.name for node in program.graph.nodes if node.op == "call_function"]
    assert trial_lower(program, [names], [], Converting) == {}
    assert calls == ["convert"]


def test_large_zero_weights_take_no_memory_until_written():
    torch.zeros(8).sum()  # the reduction's own first-call memory, out of the way
    before = _rss_pages()
    zeros = trial_lowering._untouched_zeros(torch.Size([4096, 1024]), torch.float32)
    assert zeros.shape == (4096, 1024) and zeros.dtype == torch.float32
    assert zeros.sum() == 0  # reading maps the zero page, no memory of its own
    assert _rss_pages() - before < 1024  # the 16 MiB of zeros are 4096 pages
    zeros[0, 0] = 1  # and it is an ordinary, writable tensor
    assert zeros.sum() == 1


def _rss_pages():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1])


def test_a_bisection_prefix_takes_the_getitems_of_its_nodes_along(monkeypatch):
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    pool = graph.call_function(torch.ops.aten.max_pool2d_with_indices.default, (x, [1, 2]))
    values = graph.call_function(operator.getitem, (pool, 0))
    later = graph.call_function(torch.ops.aten.fmod.Tensor, (values, values))
    partition = [pool, values, later]
    tried = []

    def trial(program, partitions, compile_specs, backend):
        (prefix,) = partitions
        tried.append(prefix)
        return {0: RuntimeError("fmod")} if later.name in prefix else {}

    monkeypatch.setattr(trial_lowering, "trial_lower", trial)
    node, _ = bisect_refusal(
        cast("ExportedProgram", None), partition, RuntimeError("x"), [], object
    )
    assert node is later
    assert tried and all(prefix == [pool.name, values.name] for prefix in tried)
