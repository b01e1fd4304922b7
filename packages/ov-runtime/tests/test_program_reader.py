"""The facade's in-place reader of a .pte agrees with ExecuTorch's own deserializer."""

import subprocess
import sys

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.schema import Bool, Double, Int, Tensor

from ov_runtime import OpenvinoPartitioner, lower
from ov_runtime.facade.program_reader import read_plans
from ov_runtime.native.runner import BOOL, DOUBLE, INT, TENSOR


class Scalars(torch.nn.Module):
    def forward(self, x, n: int, scale: float, flag: bool):
        return x * n * scale + flag, x.sum()


class Growing(torch.nn.Module):
    def forward(self, x):
        return x.relu()


class AddOne(torch.nn.Module):
    def forward(self, x):
        return x + 1


class Twice(torch.nn.Module):
    def forward(self, x):
        return x * 2


def _scalars() -> bytes:
    return lower(Scalars(), (torch.randn(2, 3), 3, 0.5, True)).buffer


def _dynamic() -> bytes:
    batch = torch.export.Dim("batch", max=64)
    exported = torch.export.export(Growing(), (torch.randn(4, 3),), dynamic_shapes=({0: batch},))
    return lower(exported).buffer


def _channels_last() -> bytes:
    conv = torch.nn.Conv2d(3, 4, 3).eval()
    x = torch.randn(1, 3, 8, 8).to(memory_format=torch.channels_last)
    return lower(conv, (x,)).buffer


def _two_methods() -> bytes:
    x = (torch.randn(2),)
    programs = {
        "forward": torch.export.export(AddOne(), x),
        "double": torch.export.export(Twice(), x),
    }
    edge = to_edge_transform_and_lower(programs, partitioner=[OpenvinoPartitioner()])
    buffer: bytes = edge.to_executorch().buffer
    return buffer


def _expected(value) -> tuple[object, ...]:
    """What ExecuTorch's deserializer says of one input, in the reader's terms."""
    if isinstance(value, Tensor):
        return (
            TENSOR,
            int(value.scalar_type),
            tuple(value.sizes),
            tuple(value.dim_order),
            int(value.shape_dynamism) == 0,
        )
    kind = {Int: INT, Double: DOUBLE, Bool: BOOL}[type(value)]
    field = {Int: "int_val", Double: "double_val", Bool: "bool_val"}[type(value)]
    return (kind, getattr(value, field))


def _read(plan_value) -> tuple[object, ...]:
    if plan_value.kind == TENSOR:
        return (
            TENSOR,
            plan_value.scalar_type,
            plan_value.sizes,
            plan_value.dim_order,
            plan_value.static,
        )
    return (plan_value.kind, plan_value.value)


@pytest.mark.parametrize("build", [_scalars, _dynamic, _channels_last, _two_methods])
def test_methods_inputs_and_outputs_equal_executorchs_deserializer(build):
    data = build()
    program = deserialize_pte_binary(data).program
    plans = read_plans(data)
    assert [plan.name for plan in plans] == [plan.name for plan in program.execution_plan]
    for plan, expected in zip(plans, program.execution_plan, strict=True):
        assert plan.num_outputs == len(expected.outputs)
        wanted = [_expected(expected.values[i].val) for i in expected.inputs]
        assert [_read(value) for value in plan.inputs] == wanted


def test_the_scalar_values_and_a_bounded_shape_are_read():
    scalars = read_plans(_scalars())[0].inputs
    assert [(value.kind, value.value) for value in scalars[1:]] == [
        (INT, 3),
        (DOUBLE, 0.5),
        (BOOL, True),
    ]
    bounded = read_plans(_dynamic())[0].inputs[0]
    assert bounded.sizes == (64, 3) and not bounded.static


@pytest.mark.parametrize("cut", [100, 1000])
def test_cut_bytes_are_a_value_error_not_a_crash(cut):
    data = _scalars()
    with pytest.raises(ValueError, match="cut or damaged"):
        read_plans(data[:cut])


def test_running_a_program_imports_neither_executorchs_compiler_nor_openvinos_python(tmp_path):
    path = tmp_path / "model.pte"
    path.write_bytes(_scalars())
    script = (
        "import sys, torch\n"
        "from ov_runtime import run\n"
        f"outputs = run({str(path)!r}, [torch.ones(2, 3), 3, 0.5, True])\n"
        "assert outputs[0].tolist() == [[2.5] * 3] * 2, outputs\n"
        "print(sorted(m for m in ('executorch.exir', 'executorch.runtime', 'openvino') "
        "if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
