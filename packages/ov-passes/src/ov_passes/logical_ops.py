"""``logical_and``, ``logical_or`` and ``logical_xor`` as bitwise ops on bools, which the frontend converts.

OpenVINO's PyTorch frontend converts ``bitwise_and``/``or``/``xor`` (of bools:
LogicalAnd, LogicalOr, LogicalXor) but not the ``logical_*`` ops (``logical_not`` it converts, of bools only), which
``torch.logaddexp`` and masks built with ``&`` on comparisons bring. A
non-bool operand becomes ``x != 0`` first, as PyTorch reads it (NaN is true).

``where(c, a, b)`` of bool values becomes ``(c & a) | (~c & b)``: OpenVINO's
CPU plugin fails to compile a ``Select`` of bools (its JIT eltwise kernel).
A value of ``where`` in another dtype than the result (a bool beside uint8,
which PyTorch promotes) is cast first: the frontend made a ``Select`` of a
bool and a u8, which the CPU plugin refused. A bool is cast through int32:
the plugin folded a single bool-to-u8 ``Convert`` of the condition itself into
the ``Select`` and then refused it (2026.4).

``where(c, a, b)`` of int32 values becomes ``b ^ ((a ^ b) & -int(c))``: the
CPU plugin computes a ``Select`` fused after an ``Equal`` with a constant in
float32, so ``where(x == x, x, x)`` of 2,147,483,646 gave -2,147,483,648
(2026.4.1; this backend's exact int32 equality is ``x - x == 0``). Its bitwise
ops are exact there.

A float, int32 or int64 tensor read as bools, converted (``x.bool()``) or
reduced (``any``, ``all``), becomes ``x != 0`` first: OpenVINO's CPU plugin
reads NaN as false there (measured on 2026.4: ``tensor([nan]).bool()`` gave
``[False]``), and -2**31 and -2**63 too (int8 and int16 minima read true).
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node, truth_value
from ov_spec import op_name

aten = torch.ops.aten

_BITWISE = {
    "aten.logical_and.default": aten.bitwise_and.Tensor,
    "aten.logical_or.default": aten.bitwise_or.Tensor,
    "aten.logical_xor.default": aten.bitwise_xor.Tensor,
}


@declare(Stage.REWRITES, converts=set(_BITWISE))
def logical_ops_as_bitwise(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite ``logical_and``/``or``/``xor`` of two tensors as the bitwise op of their truth values.

    ``logical_not`` of a non-bool tensor becomes ``x == 0``: OpenVINO's
    ``LogicalNot`` takes bools only, and the plugin failed to compile it.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) == "aten.logical_not.default" and not _tensor_of(torch.bool, node.args[0]):
            with graph.inserting_before(node):
                replacement = call_function(graph, aten.eq.Scalar, (node.args[0], 0))
            replace_node(node, replacement)
            changed = True
            continue
        bitwise = _BITWISE.get(op_name(node))
        operands = node.args[:2]
        if bitwise is None or not all(isinstance(o, torch.fx.Node) for o in operands):
            continue
        with graph.inserting_before(node):
            left, right = (truth_value(graph, o) for o in operands)
            replacement = call_function(graph, bitwise, (left, right))
        replace_node(node, replacement)
        changed = True
    return changed


_TRUTH_REDUCTIONS = frozenset(
    {"aten.any.default", "aten.any.dim", "aten.any.dims"}
    | {"aten.all.default", "aten.all.dim", "aten.all.dims"}
)


def _read_as_false_at_extremes(value: object) -> bool:
    """Whether OpenVINO's conversion to bool misreads some value of this tensor (NaN, -2**31, -2**63)."""
    value = value.meta.get("val") if isinstance(value, torch.fx.Node) else None
    return isinstance(value, torch.Tensor) and (
        value.is_floating_point() or value.dtype in (torch.int32, torch.int64)
    )


@declare(Stage.REWRITES)
def truth_as_comparisons(graph_module: torch.fx.GraphModule) -> bool:
    """Read float, int32 and int64 tensors as ``x != 0`` where they become bools: conversions, ``any`` and ``all``.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        name, x = op_name(node), node.args[0] if node.args else None
        if not isinstance(x, torch.fx.Node) or not _read_as_false_at_extremes(x):
            continue
        if name == "aten._to_copy.default" and node.kwargs.get("dtype") == torch.bool:
            with graph.inserting_before(node):
                replace_node(node, truth_value(graph, x))
            changed = True
        elif name in _TRUTH_REDUCTIONS:
            with graph.inserting_before(node):
                node.replace_input_with(x, truth_value(graph, x))
            changed = True
    return changed


def _tensor_of(dtype: torch.dtype, value: object) -> bool:
    """Whether ``value`` is a node whose result is a tensor of ``dtype``."""
    return (
        isinstance(value, torch.fx.Node) and getattr(value.meta.get("val"), "dtype", None) == dtype
    )


@declare(Stage.REWRITES)
def select_values_in_result_dtype(graph_module: torch.fx.GraphModule) -> bool:
    """Cast each value tensor of ``where(c, a, b)`` whose dtype is not the result's to it.

    Returns:
        True when a value was cast.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        result = node.meta.get("val")
        if op_name(node) != "aten.where.self" or not isinstance(result, torch.Tensor):
            continue
        for position, value in enumerate(node.args[1:3], start=1):
            dtype = (
                getattr(value.meta.get("val"), "dtype", None)
                if isinstance(value, torch.fx.Node)
                else None
            )
            if dtype is None or dtype == result.dtype:
                continue
            with graph.inserting_before(node):
                if dtype == torch.bool:  # a bool goes through int32 (see the module's docstring)
                    value = call_function(
                        graph, aten._to_copy.default, (value,), {"dtype": torch.int32}
                    )
                cast = call_function(
                    graph, aten._to_copy.default, (value,), {"dtype": result.dtype}
                )
            node.update_arg(position, cast)
            changed = True
    return changed


@declare(Stage.REWRITES)
def bool_selects_as_bitwise(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite ``where(c, a, b)`` of bool tensors ``a`` and ``b`` as ``(c & a) | (~c & b)``.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) != "aten.where.self" or not all(
            _tensor_of(torch.bool, a) for a in node.args[:3]
        ):
            continue
        condition, chosen, other = node.args[:3]
        with graph.inserting_before(node):
            taken = call_function(graph, aten.bitwise_and.Tensor, (condition, chosen))
            negated = call_function(graph, aten.bitwise_not.default, (condition,))
            left = call_function(graph, aten.bitwise_and.Tensor, (negated, other))
            replacement = call_function(graph, aten.bitwise_or.Tensor, (taken, left))
        replace_node(node, replacement)
        changed = True
    return changed


@declare(
    Stage.REWRITES, after=("select_values_in_result_dtype",), why="values in the result's dtype"
)
def int32_selects_as_bitwise(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite ``where(c, a, b)`` of int32 tensors ``a`` and ``b`` as ``b ^ ((a ^ b) & -int(c))``.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) != "aten.where.self" or not all(
            _tensor_of(torch.int32, a) for a in (node, *node.args[1:3])
        ):
            continue
        condition, chosen, other = node.args[:3]
        with graph.inserting_before(node):
            ones = call_function(graph, aten._to_copy.default, (condition,), {"dtype": torch.int32})
            mask = call_function(graph, aten.neg.default, (ones,))
            differing = call_function(graph, aten.bitwise_xor.Tensor, (chosen, other))
            kept = call_function(graph, aten.bitwise_and.Tensor, (differing, mask))
            replacement = call_function(graph, aten.bitwise_xor.Tensor, (other, kept))
        replace_node(node, replacement)
        changed = True
    return changed
