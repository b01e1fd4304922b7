"""A batched matrix product with a weight broadcast over the batch becomes one ``mm`` with the weight.

ExecuTorch decomposes ``x @ w.T`` of a 3-D ``x`` (a Linear inside attention)
into ``bmm(x, expand(w.T, [batch, k, n]))``. OpenVINO then folds the broadcast
weight into one float32 constant, so the dequantize of a PT2E int8 weight no
longer sits on the product and its low-precision transformations leave the
layer in float32 (2 of the 12 fully connected layers of a quantized MiniLM,
measured on a CPU with VNNI, OpenVINO 2026.4). ``x`` viewed as
``(batch * m, k)`` times the 2-D weight, viewed back as ``(batch, m, n)``, is
the same product with the dequantize in place (the frontend does not convert
``aten.matmul``).
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node
from ov_spec import op_name

aten = torch.ops.aten

_VIEWS = frozenset({"aten.view_copy.default", "aten.view.default", "aten._unsafe_view.default"})
_EXPANDS = frozenset({"aten.expand_copy.default", "aten.expand.default"})


def _shape(node: object) -> tuple[object, ...] | None:
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return tuple(value.shape) if isinstance(value, torch.Tensor) else None


def _broadcast_matrix(operand: object) -> torch.fx.Node | None:
    """The 2-D ``w`` when ``operand`` is ``expand(w, [batch, *w.shape])``, maybe viewed as itself."""
    if not isinstance(operand, torch.fx.Node):
        return None
    expanded = operand
    if op_name(operand) in _VIEWS and isinstance(operand.args[0], torch.fx.Node):
        expanded = operand.args[0]
        if _shape(expanded) != _shape(operand):
            return None
    if op_name(expanded) not in _EXPANDS or not isinstance(expanded.args[0], torch.fx.Node):
        return None
    matrix = expanded.args[0]
    shape, matrix_shape = _shape(expanded), _shape(matrix)
    if shape is None or matrix_shape is None or len(matrix_shape) != 2:
        return None
    return matrix if len(shape) == 3 and shape[1:] == matrix_shape else None


@declare(Stage.QUANTIZATION)
def broadcast_weights_as_matmul(graph_module: torch.fx.GraphModule) -> bool:
    """Replace ``bmm(x, expand(w))`` of a 2-D ``w`` by ``mm(x.view(-1, k), w).view(batch, m, n)``.

    Returns:
        True when a product was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) != "aten.bmm.default":
            continue
        matrix = _broadcast_matrix(node.args[1])
        if matrix is None:
            continue
        with graph.inserting_before(node):
            flat = call_function(
                graph, aten.view_copy.default, (node.args[0], [-1, matrix.meta["val"].shape[0]])
            )
            product = call_function(graph, aten.mm.default, (flat, matrix))
            batched = call_function(
                graph, aten.view_copy.default, (product, list(node.meta["val"].shape))
            )
        replace_node(node, batched)
        changed = True
    if changed:
        graph.eliminate_dead_code()
    return changed
