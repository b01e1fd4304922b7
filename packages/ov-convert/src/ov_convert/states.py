"""Buffers a partition mutates, kept as OpenVINO state (``ReadValue``/``Assign``) in the delegate.

A partition that owns a mutated buffer (see ``ov_partition.mutable_buffers``)
reads the buffer and computes its new value. OpenVINO keeps such a value
between inferences of one infer request as a variable: ``ReadValue`` gives
the value the last ``Assign`` stored, or its initial value on the first
inference. This is how OpenVINO's own stateful LLMs keep their KV cache
(``MakeStateful``), and it matches ExecuTorch's semantics: a buffer keeps its
value from one execution of a loaded method to the next and starts from its
initial value when the program is loaded again (a new infer request).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import openvino as ov
import torch
from openvino import opset6, opset13
from openvino.op.util import Variable, VariableInfo
from torch.export import ExportedProgram


@dataclass(frozen=True)
class State:
    """A buffer the partition mutates.

    Attributes:
        name: The buffer's fully qualified name (``key_cache_0``); the OpenVINO variable id.
        initial: Its value when the program loads (any shape and dtype).
        update: The example value (``FakeTensor``) of the new value the partition computes.
    """

    name: str
    initial: torch.Tensor
    update: object


def lift_states(module: torch.fx.GraphModule, program: ExportedProgram) -> list[State]:
    """Make each buffer ``program`` mutates a trailing input of ``module`` and its new value a trailing output.

    ``module`` is ``program.module()``: unlifting reads a buffer with
    ``get_attr`` and writes it back with ``aten.copy_``, which a converter
    would take for a constant and a dropped in-place op. Here the buffer is
    read from a new placeholder after the user inputs instead, and the value
    ``copy_`` wrote becomes an output after the user outputs; both in the
    order of the returned list.
    """
    mutated = set(program.graph_signature.buffers_to_mutate.values())
    graph = module.graph
    placeholders = [node for node in graph.nodes if node.op == "placeholder"]
    output = graph.output_node()
    states: list[State] = []
    for node in list(graph.nodes):
        if not (node.op == "get_attr" and node.target in mutated):
            continue
        writes = [user for user in node.users if user.target is torch.ops.aten.copy_.default]
        update = writes[0].args[1]
        assert isinstance(update, torch.fx.Node)
        for write in writes:
            graph.erase_node(write)
        anchor = placeholders[-1] if placeholders else next(iter(graph.nodes))
        insert = graph.inserting_after(anchor) if placeholders else graph.inserting_before(anchor)
        with insert:
            placeholder = graph.placeholder(f"state_{len(states)}")
        placeholder.meta = dict(node.meta)  # "val", which ExecuTorch's passes read
        placeholders.append(placeholder)
        node.replace_all_uses_with(placeholder)
        graph.erase_node(node)
        target = str(node.target)
        states.append(State(target, module.get_buffer(target), update.meta.get("val")))
        results = output.args[0]
        assert isinstance(results, (tuple, list))
        output.args = ((*results, update),)
    if states:
        # Unlifting generates a forward that flattens the user inputs by their
        # pytree spec, which the added placeholders are not part of.
        graph.set_codegen(torch.fx.graph.CodeGen())
        graph.lint()
        module.recompile()
    return states


def make_stateful(
    model: ov.Model, states: list[State], user_inputs: int, user_outputs: int
) -> ov.Model:
    """Turn the trailing parameters and results :func:`lift_states` added into OpenVINO variables.

    Parameter ``user_inputs + k`` becomes a ``ReadValue`` of variable
    ``states[k].name`` and result ``user_outputs + k`` an ``Assign`` to it.
    A buffer whose elements are all equal (a zeroed KV cache) starts from a
    broadcast scalar, so the payload does not carry its bytes.
    """
    parameters = model.get_parameters()
    results = model.get_results()
    sinks = []
    for index, state in enumerate(states):
        parameter = parameters[user_inputs + index]
        info = VariableInfo()
        info.variable_id = state.name
        info.data_type = parameter.get_element_type()
        info.data_shape = parameter.get_partial_shape()
        variable = Variable(info)
        read = opset6.read_value(_initial_value(state.initial, info.data_type), variable)
        parameter.output(0).replace(read.output(0))
        update = results[user_outputs + index].input_value(0)
        # The binding takes a node (its first output); the value may be another output of it.
        assign = opset6.assign(update.get_node(), variable)
        assign.set_argument(0, update)
        sinks.append(assign)
    return ov.Model(
        results[:user_outputs], sinks, parameters[:user_inputs], model.get_friendly_name()
    )


def _initial_value(initial: torch.Tensor, element_type: ov.Type) -> ov.Node:
    values = initial.detach().contiguous()
    if values.dtype == torch.bfloat16:  # numpy has no bfloat16; the constant converts back
        values = values.float()
    flat = values.reshape(-1)
    if flat.numel() > 0 and bool((flat == flat[0]).all()):
        first = opset13.constant(flat[:1].reshape(()).numpy(), dtype=element_type)
        shape = opset13.constant(np.array(values.shape, dtype=np.int64))
        return opset13.broadcast(first, shape)
    return opset13.constant(values.numpy(), dtype=element_type)
