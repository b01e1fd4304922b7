"""A static KV cache turned into OpenVINO's own: state that grows by concatenation, with fused attention.

Both LLM exports keep each layer's keys and values in a buffer of the cache's
full length ``L`` (``[B, H, L, D]``), write a call's ``n`` new positions into
it at ``positions`` (``index_copy``, here a ``ScatterElementsUpdate`` on the
state along axis 2), and attend over all ``L`` positions with a mask that
gives the ones not yet written exactly zero weight. OpenVINO's own stateful
LLMs instead keep ``[B, H, T, D]`` for the ``T`` positions so far and
concatenate each call's keys onto it; its CPU plugin recognizes
``ReadValue -> Gather(beam) -> Concat -> [grouped-query expansion] ->
ScaledDotProductAttention`` with the ``Assign`` of the concatenation
(``StatefulSDPAFusion``) and runs it as one node that keeps the cache
internally, in ``KV_CACHE_PRECISION``, and attends over the ``T + n``
positions alone.

:func:`append_caches` rewrites the first form into the second where every
piece is as described; the grouped-query expansion's shape constants give
the sequence axis ``-1`` (``Reshape``) or ``1`` (a bidirectional
``Broadcast``), and the mask keeps its first ``T + n`` columns, the ones the
static form could give weight to. The two forms compute the same when the
call's positions are ``T, T+1, ..., T+n-1`` within ``L``: anything else
(skipping or rewriting positions, or past the cache) would silently differ,
so the rewritten model refuses it, by a ``Reshape`` of the new keys to a
length that is wrong by exactly the discrepancy, which OpenVINO reports as an
inference error. A new prompt starts at position 0: the runtime resets the
delegate's state first (the payload marks the input of the positions, or of
the first position, :data:`POSITIONS_INPUT`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import openvino as ov
from openvino import opset6, opset13
from openvino.op.util import Variable, VariableInfo

POSITIONS_INPUT = "ov_executorch_cache_positions"
"""The runtime info key that marks the parameter whose first element is a call's first cache position."""

REFUSAL = "kv_cache_positions_must_follow_the_positions_so_far_within_the_cache_or_start_again_at_0"
"""The name of the ``Reshape`` that refuses other positions, which OpenVINO's error message shows."""

_SEQUENCE_AXIS = -2
_EXPANSIONS = ("Unsqueeze", "Broadcast", "Reshape")


@dataclass
class _Cache:
    """One cache write the rewrite recognized, with what it reads and who reads it."""

    read: ov.Node  # the ReadValue
    write: ov.Node  # the ScatterElementsUpdate
    assign: ov.Node
    chain: list[ov.Node]  # the expansions from the write to the attention, in order
    attention: ov.Node
    port: int  # the attention's input the chain ends at: 1 (keys) or 2 (values)


def _only_consumer(output: ov.Output) -> ov.Node | None:
    targets = list(output.get_target_inputs())
    return targets[0].get_node() if len(targets) == 1 else None


def _constant(output: ov.Output) -> np.ndarray | None:
    node = output.get_node()
    return node.get_data() if node.get_type_name() == "Constant" else None


def _recognize(read: ov.Node, results: set[str]) -> _Cache | None:
    """The cache that ``read`` (a ReadValue of a static ``[B, H, L, D]``) starts, or None.

    ``results`` names the model's results: a ``Result`` outside them (the one
    :func:`ov_convert.states.make_stateful` replaced by the ``Assign``) reads nothing.
    """
    shape = read.get_output_partial_shape(0)
    if shape.is_dynamic or len(shape) != 4:
        return None
    write = _only_consumer(read.output(0))
    if write is None or write.get_type_name() != "ScatterElementsUpdate":
        return None
    axis = _constant(write.input_value(3))
    if write.input_value(0).get_node() is not read or axis is None or int(axis) not in (2, -2):
        return None
    assigns: list[ov.Input] = []
    heads: list[ov.Input] = []
    for target in write.output(0).get_target_inputs():
        kind = target.get_node().get_type_name()
        if kind == "Result" and target.get_node().get_name() not in results:
            continue
        (assigns if kind == "Assign" else heads).append(target)
    if len(assigns) != 1 or len(heads) != 1:
        return None
    chain: list[ov.Node] = []
    node, port = heads[0].get_node(), heads[0].get_index()
    while node.get_type_name() in _EXPANSIONS and port == 0:
        chain.append(node)
        following = list(node.output(0).get_target_inputs())
        if len(following) != 1:
            return None
        node, port = following[0].get_node(), following[0].get_index()
    if node.get_type_name() != "ScaledDotProductAttention" or port not in (1, 2):
        return None
    return _Cache(read, write, assigns[0].get_node(), chain, node, port)


def _free_sequence_axis(chain: list[ov.Node], length: int) -> bool:
    """Give each shape constant of ``chain`` a sequence axis of any length; False where one cannot."""
    for node in chain:
        if node.get_type_name() == "Unsqueeze":
            continue
        target = _constant(node.input_value(1))
        if target is None or target.ndim != 1 or target[_SEQUENCE_AXIS] != length:
            return False
        free = target.copy()
        if node.get_type_name() == "Broadcast":
            if node.get_attributes().get("mode") != "bidirectional":
                return False
            free[_SEQUENCE_AXIS] = 1
        else:
            if -1 in target.tolist():
                return False
            free[_SEQUENCE_AXIS] = -1
        node.input(1).replace_source_output(opset13.constant(free).output(0))
    return True


def _position_parameters(model: ov.Model, start: ov.Output) -> list[ov.Node]:
    """The model's integer parameters that ``start``'s values are offset by.

    A 1-D parameter holds the positions themselves (transformers'
    ``cache_position``); a 0-d one is the first position (ExecuTorch's Llama
    adds ``input_pos[0]``, read on the CPU, to ``arange(n)``). Shapes and a
    ``Range``'s stop and step (the count of positions) are not followed.
    """
    parameters = {p.get_name() for p in model.get_parameters()}
    found, pending, seen = [], [start.get_node()], set()
    while pending:
        node = pending.pop()
        if node.get_name() in seen or node.get_type_name() in ("ShapeOf", "Constant"):
            continue
        seen.add(node.get_name())
        shape = node.get_output_partial_shape(0)
        if node.get_name() in parameters:
            if node.get_output_element_type(0).is_integral() and shape.rank.get_length() <= 1:
                found.append(node)
            continue
        values = node.input_values()[:1] if node.get_type_name() == "Range" else node.input_values()
        pending.extend(value.get_node() for value in values)
    return found


def _scalar(output: ov.Output, index: int) -> ov.Output:
    """Element ``index`` of a 1-D shape as a 0-d i64."""
    gathered = opset13.gather(output, opset13.constant(np.int64(index)), opset13.constant(0))
    return opset13.convert(gathered, ov.Type.i64).output(0)


def _appended(cache: _Cache, beams: ov.Node) -> tuple[ov.Node, ov.Node, ov.Output]:
    """The ``Assign`` of the grown cache, the ``Concat`` that grows it, and ``T + n``, for ``cache``."""
    batch, heads, length, depth = (int(d) for d in cache.read.get_output_shape(0))
    element = cache.read.get_output_element_type(0)
    info = VariableInfo()
    info.variable_id = cache.read.get_variable_id()
    info.data_type = element
    info.data_shape = ov.PartialShape([batch, heads, -1, depth])
    empty = opset13.broadcast(
        opset13.constant(np.zeros((), np.float32), dtype=element),
        opset13.constant(np.array([batch, heads, 0, depth], np.int64)),
    )
    variable = Variable(info)
    read = opset6.read_value(empty, variable)
    past = opset13.gather(read, beams, opset13.constant(np.int32(0)))

    new = cache.write.input_value(2)
    filled = _scalar(opset13.shape_of(read).output(0), 2)
    count = _scalar(opset13.shape_of(new).output(0), 2)
    positions = _written_positions(cache.write.input_value(1))
    checked = _checked(new, positions, filled, count, length)
    grown = opset13.concat([past, checked], 2)
    return opset6.assign(grown, variable), grown, opset13.add(filled, count).output(0)


def _written_positions(indices: ov.Output) -> ov.Output:
    """The positions a ``ScatterElementsUpdate`` along axis 2 writes, as i64 ``[n]``."""
    start, stop = np.zeros(4, np.int64), np.array([1, 1, np.iinfo(np.int64).max, 1], np.int64)
    column = opset13.slice(
        indices,
        opset13.constant(start),
        opset13.constant(stop),
        opset13.constant(np.ones(4, np.int64)),
    )
    flat = opset13.constant(np.array([-1], np.int64))
    return opset13.reshape(opset13.convert(column, ov.Type.i64), flat, special_zero=False).output(0)


def _checked(
    new: ov.Output, positions: ov.Output, filled: ov.Output, count: ov.Output, length: int
) -> ov.Node:
    """``new`` (``[B, H, n, D]``), reshaped to a length that is wrong unless ``positions`` follow on.

    The discrepancy is 0 exactly when ``positions`` are ``T, ..., T+n-1`` with
    ``T`` the ``filled`` length and ``T + n`` within ``length``.
    """
    first = _scalar(positions, 0)
    one, zero = opset13.constant(np.int64(1)), opset13.constant(np.int64(0))
    expected = opset13.add(first, opset13.range(zero, count, one, ov.Type.i64))
    discrepancy = opset13.add(
        opset13.add(
            opset13.reduce_sum(opset13.abs(opset13.subtract(positions, expected)), zero),
            opset13.abs(opset13.subtract(filled, first)),
        ),
        opset13.maximum(
            opset13.subtract(opset13.add(first, count), opset13.constant(np.int64(length))), zero
        ),
    )
    shape = opset13.shape_of(new, ov.Type.i64)
    step = opset13.constant([1])
    wrong_by_discrepancy = opset13.concat(
        [
            opset13.slice(shape, opset13.constant([0]), opset13.constant([2]), step),
            opset13.reshape(opset13.add(count, discrepancy), step, special_zero=False),
            opset13.slice(shape, opset13.constant([3]), opset13.constant([4]), step),
        ],
        0,
    )
    checked = opset13.reshape(new, wrong_by_discrepancy, special_zero=False)
    # OpenVINO's error names the node: let the name say what went wrong.
    checked.set_friendly_name(REFUSAL)
    return checked


def append_caches(model: ov.Model) -> tuple[ov.Model, int]:
    """Rewrite each recognized static KV cache of ``model`` (see the module docstring).

    Returns:
        The model (a new one when anything was rewritten) and how many caches
        were. Nothing is rewritten unless every state of ``model`` is a
        recognized cache, both inputs of each attention they feed are, and
        their positions are offset by an integer parameter: the positions
        (1-D) or the first of them (0-d). That parameter (the first, where
        each layer reads its own) gets the :data:`POSITIONS_INPUT` runtime info.
    """
    if not any(op.get_type_name() == "ReadValue" for op in model.get_ops()):
        return model, 0
    # Recognized and rewritten on a copy, so that a pattern that fails half
    # way leaves ``model`` as it was.
    rewritten, count = _rewrite(model.clone())
    return (rewritten, count) if count else (model, 0)


def _recognized(model: ov.Model) -> tuple[list[_Cache], ov.Node] | None:
    """Every state of ``model`` as a cache, and the parameter of their positions; None unless all are."""
    reads = [op for op in model.get_ordered_ops() if op.get_type_name() == "ReadValue"]
    results = {result.get_name() for result in model.get_results()}
    caches = [_recognize(read, results) for read in reads]
    found = [cache for cache in caches if cache is not None]
    if len(found) != len(caches):
        return None
    attentions = {c.attention.get_name() for c in found}
    ports = {(c.attention.get_name(), c.port) for c in found}
    if len(ports) != 2 * len(attentions) or len(ports) != len(found):
        return None
    sources = {
        p.get_name() for c in found for p in _position_parameters(model, c.write.input_value(1))
    }
    if not sources:
        return None
    # ExecuTorch's Llama reads its first position once per layer: equal values
    # in separate parameters. The runtime watches the first of them; each
    # cache checks its own positions, so parameters that differ fail the call.
    return found, next(p for p in model.get_parameters() if p.get_name() in sources)


def _rewrite(model: ov.Model) -> tuple[ov.Model, int]:
    """Rewrite the caches of ``model`` in place; the rebuilt model and their count, or 0 if one cannot be."""
    recognized = _recognized(model)
    if recognized is None:
        return model, 0
    caches, positions = recognized
    rewritten = {c.assign.get_name() for c in caches}
    sinks = [sink for sink in model.get_sinks() if sink.get_name() not in rewritten]
    masked: set[str] = set()
    # One beam order for every cache: the CPU plugin fuses the keys and values
    # of an attention only where both gather by the same node.
    batch = int(caches[0].read.get_output_shape(0)[0])
    beams = opset13.constant(np.arange(batch, dtype=np.int32))
    for cache in caches:
        length = int(cache.read.get_output_shape(0)[2])
        if not _free_sequence_axis(cache.chain, length):
            return model, 0
        if int(cache.read.get_output_shape(0)[0]) != batch:
            return model, 0
        assign, grown, total = _appended(cache, beams)
        head = cache.chain[0].input(0) if cache.chain else cache.attention.input(cache.port)
        head.replace_source_output(grown.output(0))
        sinks.append(assign)
        attention = cache.attention
        if attention.get_name() not in masked and attention.get_input_size() > 3:
            masked.add(attention.get_name())
            mask = attention.input_value(3)
            attention.input(3).replace_source_output(
                opset13.slice(
                    mask,
                    opset13.constant([0]),
                    opset13.reshape(total, opset13.constant([1]), special_zero=False),
                    opset13.constant([1]),
                    opset13.constant([-1]),
                ).output(0)
            )
    positions.get_rt_info()[POSITIONS_INPUT] = True
    rebuilt = ov.Model(
        model.get_results(), sinks, model.get_parameters(), model.get_friendly_name()
    )
    rebuilt.validate_nodes_and_infer_types()
    return rebuilt, len(caches)
