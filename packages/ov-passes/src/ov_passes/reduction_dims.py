"""Spell out "every dimension" where PyTorch reads it from an empty or absent ``dim``.

``x.mean(dim=[])``, ``x.sum([])`` and ``x.amax(())`` reduce over every
dimension in PyTorch, and so does ``dim=None``. OpenVINO's Reduce ops read an
empty axes list as "reduce nothing", and its CPU plugin then refuses to compile
a ReduceMean whose output rank is the input's minus nothing with
``keep_dims=False`` ("incorrect number of input/output dimensions"). Listing the
axes makes both agree.

A reduction of a 0-d tensor over its one "dim" (``-1`` or ``0``) returns
the value itself. OpenVINO's ``ReduceMerge`` transformation failed on such a
reduction after another one ("Axis 2 out of the tensor rank range", OpenVINO
2026.4: ``x.any().any(-1)``), so the program lowered and did not load; it
becomes a copy of the value in the result's dtype.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node, truth_value
from ov_spec import op_name

aten = torch.ops.aten

REDUCTIONS = frozenset(
    {
        "aten.mean.dim",
        "aten.sum.dim_IntList",
        "aten.amax.default",
        "aten.amin.default",
        "aten.var.correction",
    }
)
"""The reductions whose ``dim`` (the second argument) may be empty or ``None``."""


@declare(Stage.REWRITES)
def reductions_over_every_dim(graph_module: torch.fx.GraphModule) -> bool:
    """Replace an empty or ``None`` ``dim`` of a reduction with every dimension of its input.

    Returns:
        True when a reduction was rewritten.
    """
    changed = False
    for node in graph_module.graph.nodes:
        if op_name(node) not in REDUCTIONS or not node.args:
            continue
        value = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
        if not isinstance(value, torch.Tensor) or value.dim() == 0:
            continue
        every = list(range(value.dim()))
        if "dim" in node.kwargs:
            if node.kwargs["dim"] in (None, [], ()):
                node.kwargs = {**node.kwargs, "dim": every}
                changed = True
        elif len(node.args) == 1 or node.args[1] in (None, [], ()):
            # ``dim`` is the second parameter of each of these ops.
            node.args = (node.args[0], every, *node.args[2:])
            changed = True
    return changed


_SCALAR_REDUCTIONS = frozenset(
    {
        "aten.any.dim",
        "aten.any.dims",
        "aten.all.dim",
        "aten.all.dims",
        "aten.sum.dim_IntList",
        "aten.prod.dim_int",
        "aten.amax.default",
        "aten.amin.default",
        "aten.mean.dim",
    }
)


@declare(Stage.REWRITES)
def reductions_of_scalars_as_copies(graph_module: torch.fx.GraphModule) -> bool:
    """Replace a reduction of a 0-d tensor to a 0-d result by the value, cast to the result's dtype.

    ``any`` and ``all`` read the value as ``x != 0``, as PyTorch does (NaN is
    true); of a uint8 tensor their result is uint8, 0 or 1.

    Returns:
        True when a reduction was replaced.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        x = node.args[0] if node.args else None
        value = x.meta.get("val") if isinstance(x, torch.fx.Node) else None
        result = node.meta.get("val")
        if op_name(node) not in _SCALAR_REDUCTIONS or not isinstance(value, torch.Tensor):
            continue
        assert isinstance(x, torch.fx.Node)  # it carries ``value``
        if value.dim() != 0 or not isinstance(result, torch.Tensor) or result.dim() != 0:
            continue
        with graph.inserting_before(node):
            truth = (
                op_name(node).startswith(("aten.any.", "aten.all.")) and value.dtype != torch.bool
            )
            copy = truth_value(graph, x) if truth else x
            if not truth or result.dtype != torch.bool:  # a uint8 result is 0 or 1, as PyTorch's
                copy = call_function(graph, aten._to_copy.default, (copy,), {"dtype": result.dtype})
        replace_node(node, copy)
        changed = True
    return changed
