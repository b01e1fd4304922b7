"""Spell out "every dimension" where PyTorch reads it from an empty or absent ``dim``.

``x.mean(dim=[])``, ``x.sum([])`` and ``x.amax(())`` reduce over every
dimension in PyTorch, and so does ``dim=None``. OpenVINO's Reduce ops read an
empty axes list as "reduce nothing", and its CPU plugin then refuses to compile
a ReduceMean whose output rank is the input's minus nothing with
``keep_dims=False`` ("incorrect number of input/output dimensions"). Listing the
axes makes both agree.
"""

from __future__ import annotations

import torch

from ov_passes.pipeline import op_name

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
