"""Weight-only quantized graphs in the form OpenVINO keeps as compressed weights.

OpenVINO stores a weight as int8 (or int4) and decompresses it inside its
MatMul and FullyConnected kernels when the weight reaches the product as
``Constant (integer) -> Convert -> [Subtract zero point] -> Multiply scale``,
optionally reshaped for group-wise scales: its ``MarkDequantization``
transformation keeps that ``Convert`` from being folded into a float32
constant. torchao's weight-only configurations export other forms:

- ``IntxWeightOnlyConfig`` (int8 or int4 values, per channel or per group)
  exports ``torchao.dequantize_affine``, which OpenVINO's frontend does not
  convert: :func:`affine_dequantization_as_arithmetic` writes it as that
  pattern;
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

AFFINE_DEQUANTIZE = "torchao.dequantize_affine.default"


@declare(Stage.QUANTIZATION, converts={AFFINE_DEQUANTIZE})
def affine_dequantization_as_arithmetic(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite ``torchao.dequantize_affine`` as reshape, convert, subtract and multiply.

    ``dequantize_affine(q, block_size, scale, zero_point, input_dtype,
    quant_min, quant_max, output_dtype=float32)`` shares one scale and zero
    point among the elements of each block. As torchao's reference does
    (``torchao.quantization.quant_primitives``), each dimension that blocks
    split into more than one block and more than one element is viewed as
    ``[blocks, block]``; then ``(q.to(output_dtype) - zero_point) * scale``
    broadcasts the per-block parameters, and the result is viewed back to
    ``q``'s shape.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) != AFFINE_DEQUANTIZE:
            continue
        source, block_size, scale, zero_point = node.args[:4]
        output_dtype = node.kwargs.get("output_dtype", node.args[7] if len(node.args) > 7 else None)
        output_dtype = output_dtype or torch.float32
        shape = list(source.meta["val"].shape)
        if not all(isinstance(size, int) for size in shape):
            continue  # blocks of a dynamic size: left to the CPU's kernel
        blocked, per_block = _blocked_shapes(shape, list(block_size))
        with graph.inserting_before(node):
            value = call_function(graph, aten.view_copy.default, (source, blocked))
            value = call_function(graph, aten._to_copy.default, (value,), {"dtype": output_dtype})
            if zero_point is not None:
                zero = call_function(graph, aten.view_copy.default, (zero_point, per_block))
                zero = call_function(graph, aten._to_copy.default, (zero,), {"dtype": output_dtype})
                value = call_function(graph, aten.sub.Tensor, (value, zero))
            factor = call_function(graph, aten.view_copy.default, (scale, per_block))
            value = call_function(graph, aten.mul.Tensor, (value, factor))
            value = call_function(graph, aten.view_copy.default, (value, shape))
            if value.meta["val"].dtype != output_dtype:
                value = call_function(
                    graph, aten._to_copy.default, (value,), {"dtype": output_dtype}
                )
            replace_node(node, value)
        changed = True
    return changed


def _blocked_shapes(shape: list[int], block_size: list[int]) -> tuple[list[int], list[int]]:
    """Return the shape that puts each block on dimensions of its own, and the parameters' shape.

    A dimension whose block is neither 1 nor the whole dimension becomes
    ``[size // block, block]``, with ``[size // block, 1]`` parameters; a block
    of 1 keeps one parameter per element, a whole-dimension block one in all.
    """
    blocked: list[int] = []
    per_block: list[int] = []
    for size, block in zip(shape, block_size, strict=True):
        if 1 < block < size:
            blocked += [size // block, block]
            per_block += [size // block, 1]
        else:
            blocked.append(size)
            per_block.append(size if block == 1 else 1)
    return blocked, per_block


@declare(
    Stage.QUANTIZATION,
    after=("affine_dequantization_as_arithmetic",),
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
