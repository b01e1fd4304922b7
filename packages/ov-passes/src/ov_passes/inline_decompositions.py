"""Ops outside core ATen that the partitioner keeps whole, decomposed inside the delegate.

ExecuTorch's ``to_edge`` refuses ``aten.round.decimals`` and
``aten.linalg_solve_triangular`` (not core ATen, no decomposition of their
own) unless a partitioner names them in ``ops_to_not_decompose`` and delegates
them. The partitioner does, and this pass replaces each such node in the
partition with the graph of its decomposition in :mod:`ov_passes.decompositions`,
traced on the node's own fake values, so OpenVINO's frontend sees only ops it
converts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch._guards import detect_fake_mode
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._pytree import tree_flatten, tree_unflatten

from ov_passes.decompositions import round_decimals, solve_triangular
from ov_passes.pipeline import op_name, replace_node

INLINED: dict[str, Callable[..., Any]] = {
    "aten.round.decimals": round_decimals,
    "aten.linalg_solve_triangular.default": solve_triangular,
}
"""Op name to the decomposition this pass puts in its place."""


def _traced(node: torch.fx.Node, decomposition: Callable[..., Any]) -> torch.fx.GraphModule:
    """The graph of ``decomposition`` on the node's arguments; its inputs are the tensor arguments."""
    values, spec = tree_flatten((node.args, node.kwargs))
    positions = [i for i, v in enumerate(values) if isinstance(v, torch.fx.Node)]

    def call(*tensors: torch.Tensor) -> Any:
        filled = list(values)
        for position, tensor in zip(positions, tensors, strict=True):
            filled[position] = tensor
        args, kwargs = tree_unflatten(filled, spec)
        return decomposition(*args, **kwargs)

    fakes = [values[i].meta["val"] for i in positions]
    with detect_fake_mode(fakes) or torch._subclasses.fake_tensor.FakeTensorMode():
        return make_fx(call)(*fakes)


def inline_decompositions(graph_module: torch.fx.GraphModule) -> bool:
    """Replace each node of an :data:`INLINED` op with its decomposition's nodes.

    Returns:
        True when a node was replaced.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        decomposition = INLINED.get(op_name(node))
        if decomposition is None:
            continue
        traced = _traced(node, decomposition)
        inputs = iter(
            n for n in tree_flatten((node.args, node.kwargs))[0] if isinstance(n, torch.fx.Node)
        )
        copies: dict[torch.fx.Node, torch.fx.Node] = {}
        with graph.inserting_before(node):
            for inner in traced.graph.nodes:
                if inner.op == "placeholder":
                    copies[inner] = next(inputs)
                elif inner.op == "get_attr":  # a constant the trace made a tensor
                    name = f"_inlined_{node.name}_{inner.target}"
                    setattr(graph_module, name, getattr(traced, str(inner.target)))
                    copies[inner] = graph.get_attr(name)
                    copies[inner].meta = dict(inner.meta)
                elif inner.op == "output":
                    (result,) = inner.args
                    replace_node(node, copies[result])
                else:
                    copies[inner] = graph.node_copy(inner, copies.__getitem__)
        changed = True
    return changed
