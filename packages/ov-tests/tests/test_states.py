"""Buffers a program mutates stay in their delegate as OpenVINO state, and every call equals eager."""

import torch

from ov_runtime import inspect_program, load_program, lower


class Window(torch.nn.Module):
    """Writes ``x`` into row ``position`` of a float buffer, counts calls, returns both combined."""

    rows: torch.Tensor
    calls: torch.Tensor

    def __init__(self):
        super().__init__()
        self.register_buffer("rows", torch.arange(12, dtype=torch.float32).reshape(4, 3))
        self.register_buffer("calls", torch.tensor(0))

    def forward(self, x, position):
        self.rows.index_copy_(0, position, x)
        self.calls.add_(1)
        return self.rows.sum(0) * self.calls, self.rows[0]


def inputs(step):
    return torch.full((1, 3), -1.5 * (step + 1)), torch.tensor([step % 4])


def lowered():
    return lower(Window(), inputs(0))


def buffer_copies(program):
    top = program.program.exported_program()
    buffers = top.graph_signature.inputs_to_buffers
    return {
        buffers[node.args[0].name]
        for node in top.graph.nodes
        if node.target is torch.ops.aten.copy_.default
    }


def test_the_float_buffer_is_state_and_only_the_int64_counter_is_copied():
    program = lowered()
    assert buffer_copies(program) == {"calls"}
    (delegate,) = inspect_program(program).delegates
    assert delegate.states == ["rows f32[4,3]"]


def test_every_call_equals_eager_and_a_new_load_starts_again():
    program = lowered()
    for _ in range(2):  # the second load starts from the buffer's initial value again
        eager = Window()
        method = load_program(program.buffer).load_method()
        for step in range(6):
            got = method.execute(list(inputs(step)))
            for value, expected in zip(got, eager(*inputs(step)), strict=True):
                torch.testing.assert_close(value, expected, atol=0, rtol=0)


def test_two_loaded_programs_keep_states_of_their_own():
    program = lowered()
    first = load_program(program.buffer).load_method()
    second = load_program(program.buffer).load_method()
    eager_first, eager_second = Window(), Window()
    for step in range(3):
        x, position = inputs(step)
        first.execute([x, position])
        eager_first(x, position)
    x, position = inputs(7)
    torch.testing.assert_close(second.execute([x, position])[0], eager_second(x, position)[0])
    torch.testing.assert_close(first.execute([x, position])[0], eager_first(x, position)[0])
