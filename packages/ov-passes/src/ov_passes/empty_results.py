"""Results with no elements become constants, so OpenVINO computes nothing on empty tensors.

OpenVINO's CPU plugin dies of a divide error (SIGFPE, an integer division
by a size of 0) in some kernels whose inputs are empty: a ``Gather`` from a
table of 0 rows or 0 columns, or with no indices (measured on 2026.4 with
``embedding``, ``index_select`` and ``topk(x, 0)``). A result whose static
shape holds no element carries no value, so it is replaced by ``full`` of its
shape and dtype, and the empty inputs that fed it are no longer read.
"""

from __future__ import annotations

import operator

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node
from ov_spec import op_name

aten = torch.ops.aten


def _static_empty(node: torch.fx.Node) -> list[int] | None:
    """The shape of ``node``'s tensor result when it is static and holds no element, else None."""
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor):
        return None
    if not all(isinstance(size, int) for size in value.shape) or 0 not in value.shape:
        return None
    return list(value.shape)


@declare(Stage.EMPTY_RESULTS)
def empty_results_as_constants(graph_module: torch.fx.GraphModule) -> bool:
    """Replace each computed tensor of static shape with no element by ``full(shape, 0)``.

    Nodes whose result is an empty tensor of a static shape (``numel() == 0``),
    other than ``full`` itself, are replaced; the nodes that only fed them are
    then removed. Tuple results are replaced through the ``getitem`` nodes
    that read them.

    Returns:
        True when a node was replaced.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function" or op_name(node) == "aten.full.default":
            continue
        if isinstance(node.meta.get("val"), tuple | list) and node.target is not operator.getitem:
            continue  # replaced through its getitem readers
        shape = _static_empty(node)
        if shape is None:
            continue
        dtype = node.meta["val"].dtype
        with graph.inserting_before(node):
            empty = call_function(graph, aten.full.default, (shape, 0), {"dtype": dtype})
        replace_node(node, empty)
        changed = True
    if changed:
        graph.eliminate_dead_code()
    return changed
