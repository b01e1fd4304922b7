import pytest
import torch
from executorch.exir import to_edge
from executorch.exir.program._fake_program import get_fake_program

from ov_partition import OpenvinoPartitioner, compile_specs
from ov_partition.ranges.bounds import IntegerRanges
from ov_partition.ranges.narrowing import narrowed_nodes

I32 = torch.int32
LENGTH = torch.export.Dim("length", max=100)


def edge_program(model, inputs, dynamic_shapes=None):
    exported = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    return to_edge(exported).exported_program()


def ranges_by_op(program):
    ranges = IntegerRanges(program)
    return {
        str(node.target).split(".")[1] if node.op == "call_function" else node.name: interval
        for node, interval in ranges.ranges.items()
    }


class Positions(torch.nn.Module):
    def forward(self, x):
        positions = torch.arange(x.shape[0]) * 2 + 1
        counts = (x > 0).cumsum(0)
        return positions, counts // 2, -counts


def test_positions_and_mask_counts_are_bounded_by_the_exported_length():
    program = edge_program(Positions(), (torch.randn(8),), ({0: LENGTH},))
    ranges = ranges_by_op(program)
    assert ranges["arange"] == (0, 99)
    assert ranges["mul"] == (0, 198)
    assert ranges["add"] == (1, 199)
    assert ranges["cumsum"] == (0, 100)
    assert ranges["div"] == (0, 50)
    assert ranges["neg"] == (-100, 0)
    assert narrowed_nodes(program) == {}


class Int64Arithmetic(torch.nn.Module):
    def forward(self, a, b):
        return a.abs(), a + b, a * b


def test_int64_arithmetic_of_inputs_is_named_with_the_compile_spec_that_delegates_it():
    a = torch.tensor([2**40])
    reasons = narrowed_nodes(edge_program(Int64Arithmetic(), (a, a)))
    assert sorted(reasons) == ["aten_abs_default", "aten_add_tensor", "aten_mul_tensor"]
    assert all("allow_int64_narrowing=true" in why for why in reasons.values())
    assert narrowed_nodes(edge_program(Int64Arithmetic(), (a, a)), int64=False) == {}


class Constants(torch.nn.Module):
    def __init__(self, values):
        super().__init__()
        self.register_buffer("table", values)

    def forward(self, x):
        return self.table + x.shape[0]


@pytest.mark.parametrize("fake", [False, True], ids=["real", "fake"])
@pytest.mark.parametrize(
    ("values", "narrowed"), [(torch.arange(512), False), (torch.tensor([2**40, 0]), True)]
)
def test_a_constant_buffer_is_bounded_by_its_values(values, narrowed, fake):
    program = edge_program(Constants(values), (torch.randn(4),))
    if fake:  # what ExecuTorch hands a partitioner: fake parameters and buffers
        program = get_fake_program(program)
    assert bool(narrowed_nodes(program)) is narrowed


class Embedding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(10, 4)

    def forward(self, ids):
        return self.embedding(ids[:, 1:].reshape(-1)) * 2


def test_int64_values_read_only_as_indices_stay_delegated():
    program = edge_program(Embedding(), (torch.tensor([[1, 2, 3]]),))
    assert narrowed_nodes(program) == {}


class Divisions(torch.nn.Module):
    def forward(self, a, b):
        small = a.clamp(-1000, 1000)
        return a // b, a % b, small // 7, small % 7, a.pow(2), small.pow(2)


def test_integer_division_and_powers_need_operands_within_2_24():
    a = torch.tensor([2**31 - 1], dtype=I32)
    reasons = narrowed_nodes(edge_program(Divisions(), (a, a)))
    assert sorted(reasons) == [
        "aten_div_tensor_mode",
        "aten_pow_tensor_scalar",
        "aten_remainder_tensor",
    ]
    assert all("within 2**24" in why for why in reasons.values())


class Prod(torch.nn.Module):
    def forward(self, x):
        return torch.prod(x + 1)


def test_the_partitioner_keeps_unbounded_int64_on_the_cpu_unless_the_spec_allows_narrowing():
    x = torch.tensor([2**20, 2**20], dtype=I32)
    exact = OpenvinoPartitioner()
    exact.partition(edge_program(Prod(), (x,)))
    assert "32 bits" in exact.rejections["aten_prod_default"]
    narrowing = OpenvinoPartitioner(compile_specs(allow_int64_narrowing="true"))
    narrowing.partition(edge_program(Prod(), (x,)))
    assert "aten_prod_default" not in narrowing.rejections


class Pool(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.max_pool2d(x, 2)


def test_pooling_indices_nobody_reads_do_not_keep_the_pooling_on_the_cpu():
    program = edge_program(Pool(), (torch.randn(1, 2, 4, 4),))
    assert narrowed_nodes(program) == {}


class Checked(torch.nn.Module):
    def forward(self, x, position):
        n = position[-1].item()
        torch._check(n >= 0)
        torch._check(n < 8)
        return x[n] * 2, position.abs()


def test_an_int64_read_by_a_checked_item_alone_stays_delegated():
    program = edge_program(Checked(), (torch.randn(8, 3), torch.tensor([2**40, 3])))
    assert sorted(narrowed_nodes(program)) == ["aten_abs_default"]


class Squarings(torch.nn.Module):
    def forward(self, x):
        power = x.long()
        for _ in range(8):
            power = power * power
        return power


def test_int64_bounds_past_int64_are_unknown():
    """int64 wraps, so an int8 squared 8 times has no bounds (and they never grow to 2**1792)."""
    program = edge_program(Squarings(), (torch.ones(4, dtype=torch.int8),))
    muls = [node for node in program.graph.nodes if "mul" in str(node.target)]
    ranges = IntegerRanges(program)
    assert ranges.of(muls[1]) == (-(2**14) * (2**14 - 128), 2**28)  # (x * x) squared, by corners
    assert ranges.of(muls[-1]) is None
