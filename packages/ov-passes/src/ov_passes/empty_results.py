"""Results with no elements become constants, so OpenVINO computes nothing on empty tensors.

OpenVINO's CPU plugin dies of a divide error (SIGFPE, an integer division
by a size of 0) in some kernels whose inputs are empty: a ``Gather`` from a
table of 0 rows or 0 columns, or with no indices (measured on 2026.4 with
``embedding``, ``index_select`` and ``topk(x, 0)``). A result whose static
shape holds no element carries no value, so it is replaced by ``full`` of its
shape and dtype, and the empty inputs that fed it are no longer read.

A result with a static size of 0 beside sizes known only at run time becomes
``full`` too, its run-time sizes read from the partition's inputs
(``sym_size``): the CPU plugin infers such sizes from the element count, 0, in
``Squeeze`` and ``Unsqueeze`` after another op (measured on 2026.4.1:
``relu`` then ``squeeze`` of a ``(16, 0, 1, 4)`` tensor whose dim 0 is dynamic
gave ``(0, 0, 4)``, and ``torch.min(x, 2).indices`` of it failed to run).
"""

from __future__ import annotations

import operator

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node
from ov_spec import op_name

aten = torch.ops.aten


class _InputSizes:
    """Run-time sizes read off the partition's inputs, one ``sym_size`` node per size.

    Each symbolic size is found on the first input dim that has it; its node is
    made the first time a shape needs it, and shared after.
    """

    def __init__(self, graph: torch.fx.Graph) -> None:
        self._graph = graph
        self._dims: dict[object, tuple[torch.fx.Node, int]] = {}
        self._nodes: dict[object, torch.fx.Node] = {}
        for placeholder in graph.find_nodes(op="placeholder"):
            value = placeholder.meta.get("val")
            if not isinstance(value, torch.Tensor):
                continue
            sizes: tuple[int | torch.SymInt, ...] = tuple(value.shape)
            for dim, size in enumerate(sizes):
                if isinstance(size, torch.SymInt):
                    self._dims.setdefault(size.node.expr, (placeholder, dim))

    def shape(self, node: torch.fx.Node) -> list[object] | None:
        """The shape of ``node``'s tensor result when a static size of it is 0, else None.

        Each size known only at run time is a ``sym_size`` node of a partition
        input; None (and no node made) when an input has none of them.
        """
        value = node.meta.get("val")
        if not isinstance(value, torch.Tensor) or not any(
            isinstance(size, int) and size == 0 for size in value.shape
        ):
            return None
        sizes: tuple[int | torch.SymInt, ...] = tuple(value.shape)
        if any(
            isinstance(size, torch.SymInt) and size.node.expr not in self._dims for size in sizes
        ):
            return None
        return [size if isinstance(size, int) else self._node(size.node.expr) for size in sizes]

    def _node(self, expr: object) -> torch.fx.Node:
        if expr not in self._nodes:
            placeholder, dim = self._dims[expr]
            with self._graph.inserting_after(placeholder):
                self._nodes[expr] = call_function(
                    self._graph, aten.sym_size.int, (placeholder, dim)
                )
        return self._nodes[expr]


@declare(Stage.EMPTY_RESULTS)
def empty_results_as_constants(graph_module: torch.fx.GraphModule) -> bool:
    """Replace each computed tensor with a static size of 0 by ``full(shape, 0)``.

    Nodes whose result has a static size of 0, other than ``full`` itself, are
    replaced; the nodes that only fed them are
    then removed. Tuple results are replaced through the ``getitem`` nodes
    that read them.

    Returns:
        True when a node was replaced.
    """
    graph = graph_module.graph
    sizes = _InputSizes(graph)
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function" or op_name(node) == "aten.full.default":
            continue
        if isinstance(node.meta.get("val"), tuple | list) and node.target is not operator.getitem:
            continue  # replaced through its getitem readers
        shape = sizes.shape(node)
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
