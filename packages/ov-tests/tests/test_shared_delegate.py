"""One delegate serving several calls, as programs from older ExecuTorch releases do."""

import torch
from executorch.exir import to_edge
from executorch.exir.backend.backend_api import to_backend

from ov_runtime import BACKEND_ID, compile_specs, load_program, run
from ov_tests import assert_same


class Sub(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2, x.sum(0)


def test_one_lowered_module_called_from_two_places_with_other_shapes():
    rows = torch.export.Dim("rows", min=1, max=16)
    edge = to_edge(torch.export.export(Sub(), (torch.randn(3, 4),), dynamic_shapes=({0: rows},)))
    lowered = to_backend(BACKEND_ID, edge.exported_program(), compile_specs())

    class Twice(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lowered = lowered

        def forward(self, a, b):
            first, second = self.lowered(a), self.lowered(b)
            return first[0], second[0], first[1] + second[1]

    a_rows, b_rows = torch.export.Dim("a", min=1, max=16), torch.export.Dim("b", min=1, max=16)
    program_manager = to_edge(
        torch.export.export(
            Twice(),
            (torch.randn(3, 4), torch.randn(5, 4)),
            dynamic_shapes=({0: a_rows}, {0: b_rows}),
        )
    ).to_executorch()
    # ExecuTorch 1.5.1 emits one delegate entry per call of the lowered module;
    # each handle then serves its own call with shapes that change between runs.
    plan = program_manager.executorch_program.execution_plan[0]
    assert {d.id for d in plan.delegates} == {BACKEND_ID}

    program = load_program(program_manager.buffer)
    for a, b in [(torch.randn(3, 4), torch.randn(5, 4)), (torch.randn(16, 4), torch.randn(1, 4))]:
        expected = [torch.relu(a) * 2, torch.relu(b) * 2, a.sum(0) + b.sum(0)]
        assert_same(run(program, [a, b]), expected, atol=1e-5)
