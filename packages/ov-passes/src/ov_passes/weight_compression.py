"""Weight-only quantized graphs in the form OpenVINO keeps as compressed weights.

OpenVINO stores a weight as int8 (or int4) and decompresses it inside its
MatMul and FullyConnected kernels when the weight reaches the product as
``Constant (integer) -> Convert -> [Subtract zero point] -> Multiply scale``,
optionally reshaped for group-wise scales: its ``MarkDequantization``
transformation keeps that ``Convert`` from being folded into a float32
constant. torchao's weight-only configurations export other forms:

- ``IntxWeightOnlyConfig`` (int8 or int4 values, per channel or per group)
  exports ``torchao.dequantize_affine``, which OpenVINO's frontend does not
  convert: ``ov_passes.affine_quantization`` writes it as that pattern;
- ``Int8WeightOnlyConfig`` exports ``mm(x, int8 weight.to(float32)) * scale``,
  the scale after the product, so the ``Convert`` would be folded and the
  weight stored as float32: :func:`output_scales_onto_weights` moves the
  per-column scale onto the weight.
"""

from __future__ import annotations

from typing import Any

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node
from ov_spec import op_name

aten = torch.ops.aten


@declare(
    Stage.QUANTIZATION,
    after=("affine_quantization_as_arithmetic",),
    why="it moves the scale of the product of the integer weight that dequantization builds",
)
def output_scales_onto_weights(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite ``mm(x, w.to(float)) * scale`` as ``mm(x, w.to(float) * scale)``.

    Applies where ``w`` is an integer tensor (torchao's ``Int8WeightOnlyConfig``
    exports its weight so, as a transposed ``[N, K]`` int8 tensor), the
    product has no other user and ``scale`` has one value per output column
    (shape ``[N]`` or ``[1, N]`` for an ``[M, N]`` product). Scaling column
    ``n`` of the weight scales column ``n`` of the product; only the float32
    rounding of each term differs. A transpose moves after the scaling, so
    that the ``Convert`` reads the integer constant itself.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        product, scale = _scaled_product(node)
        if product is None:
            continue
        source, weight = product.args
        integers = weight.args[0]
        transposed = op_name(integers) == "aten.permute_copy.default" and list(
            integers.args[1]
        ) == [1, 0]
        columns = weight.meta["val"].shape[-1]
        with graph.inserting_before(node):
            if transposed:
                integers = integers.args[0]
            decompressed = call_function(
                graph, aten._to_copy.default, (integers,), {"dtype": weight.meta["val"].dtype}
            )
            shape = [columns, 1] if transposed else [1, columns]
            factor = call_function(graph, aten.view_copy.default, (scale, shape))
            scaled = call_function(graph, aten.mul.Tensor, (decompressed, factor))
            if transposed:
                scaled = call_function(graph, aten.permute_copy.default, (scaled, [1, 0]))
            replace_node(node, call_function(graph, aten.mm.default, (source, scaled)))
        graph.erase_node(product)
        for unused in (weight, weight.args[0]):  # the float weight and its transpose
            if unused.op == "call_function" and not unused.users:
                graph.erase_node(unused)
        changed = True
    return changed


def _scaled_product(node: torch.fx.Node) -> tuple[Any, Any]:
    """Return ``(mm, scale)`` when ``node`` is a per-column scale of a decompressed-weight product."""
    if op_name(node) != "aten.mul.Tensor" or len(node.args) != 2:
        return None, None
    product, scale = node.args
    if not (
        isinstance(product, torch.fx.Node)
        and isinstance(scale, torch.fx.Node)
        and op_name(product) == "aten.mm.default"
        and len(product.users) == 1
    ):
        return None, None
    weight = product.args[1]
    if not (
        isinstance(weight, torch.fx.Node)
        and op_name(weight) == "aten._to_copy.default"
        and isinstance(weight.args[0], torch.fx.Node)
    ):
        return None, None
    integers = weight.args[0].meta["val"].dtype
    if integers.is_floating_point or not weight.meta["val"].dtype.is_floating_point:
        return None, None
    columns = product.meta["val"].shape[-1]
    if list(scale.meta["val"].shape) not in ([columns], [1, columns]):
        return None, None
    if scale.meta["val"].dtype != weight.meta["val"].dtype:
        return None, None
    return product, scale
