"""Quantized graphs in the forms OpenVINO's frontend converts right.

Quantization-aware training's fake-quant ops become quantize/dequantize pairs
(:func:`fake_quantize_as_pairs`), and quantize and dequantize nodes that do not
form a pair inside the partition become arithmetic
(:func:`unpaired_quantization_as_arithmetic`).

OpenVINO's PyTorch frontend converts ``quantized_decomposed.quantize_per_*``
into a float FakeQuantize and passes ``dequantize_per_*`` through unchanged:
right for a quantize followed by its dequantize, which it then fuses into int8
kernels, and silently wrong otherwise. An int8 delegate input (its quantize
left on the CPU) or a folded int8 weight (``convert_pt2e(fold_quantize=True)``)
reached the next op as raw integers, and a quantize whose int8 output leaves
the delegate gave floats. Each such node becomes the arithmetic of PyTorch's
own reference implementation (``torch.ao.quantization.fx._decomposed``):

- dequantize: ``(x.to(float32) - zero_point) * scale``: for a constant int8
  weight this is the Constant, Convert, Subtract, Multiply pattern that
  OpenVINO keeps as compressed int8 weights;
- quantize: ``clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max).to(dtype)``.

Per-channel nodes take their scales and zero points along ``axis``.
"""

from __future__ import annotations

from typing import Any

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, constant_value, replace_node
from ov_spec import op_name

_Q = "quantized_decomposed."
QUANTIZE = {
    f"{_Q}quantize_per_tensor.default",
    f"{_Q}quantize_per_tensor.tensor",
    f"{_Q}quantize_per_channel.default",
}
DEQUANTIZE = {
    f"{_Q}dequantize_per_tensor.default",
    f"{_Q}dequantize_per_tensor.tensor",
    f"{_Q}dequantize_per_channel.default",
}

aten = torch.ops.aten
FAKE_QUANTIZE = {
    "aten.fake_quantize_per_tensor_affine.default": "per_tensor",
    "aten.fake_quantize_per_tensor_affine.tensor_qparams": "per_tensor",
    "aten.fake_quantize_per_channel_affine.default": "per_channel",
}


@declare(Stage.QUANTIZATION, converts=FAKE_QUANTIZE, kept_whole=True)
def fake_quantize_as_pairs(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite each fake-quant op of quantization-aware training as a quantize/dequantize pair.

    ``fake_quantize_per_tensor_affine(x, scale, zero_point, quant_min, quant_max)``
    (with numbers or 0-d tensors for the parameters, and the per-channel form,
    with ``axis`` after the zero points) computes
    what quantizing to ``[quant_min, quant_max]`` and dequantizing again
    computes. OpenVINO's frontend converts the pair to a FakeQuantize, which its
    low-precision transformations fuse into int8 kernels. The integer type is
    int8 or uint8 when the range fits one; a wider range is left as it is.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        kind = FAKE_QUANTIZE.get(op_name(node))
        if kind is None:
            continue
        arguments: tuple[Any, ...] = tuple(node.args)
        dtype = _integer_type(int(arguments[-2]), int(arguments[-1]))
        if dtype is None:
            continue
        if op_name(node).endswith("tensor_qparams"):
            # 0-d scale and zero point tensors: the frontend converts the pair
            # with numbers, which constants of the graph give.
            scale, zero_point = (constant_value(graph_module, value) for value in arguments[1:3])
            if scale is None or zero_point is None:
                continue
            arguments = (arguments[0], float(scale), int(zero_point), *arguments[3:])
        package = torch.ops.quantized_decomposed
        quantize = getattr(package, f"quantize_{kind}").default
        dequantize = getattr(package, f"dequantize_{kind}").default
        arguments = (*arguments, dtype)
        with graph.inserting_before(node):
            quantized = call_function(graph, quantize, arguments)
            replace_node(node, call_function(graph, dequantize, (quantized, *arguments[1:])))
        changed = True
    return changed


def _integer_type(quant_min: int, quant_max: int) -> torch.dtype | None:
    if quant_min >= -128 and quant_max <= 127:
        return torch.int8
    if quant_min >= 0 and quant_max <= 255:
        return torch.uint8
    return None


@declare(
    Stage.QUANTIZATION,
    after=("fake_quantize_as_pairs",),
    why="the pairs it builds are left to the frontend as pairs, not taken for unpaired nodes",
)
def unpaired_quantization_as_arithmetic(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite unpaired quantize and dequantize nodes as arithmetic (see the module doc).

    A quantize is unpaired when any of its users is not a dequantize; a
    dequantize is unpaired when its input is not a quantize (after the
    first rewrite).

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) in QUANTIZE and any(op_name(u) not in DEQUANTIZE for u in node.users):
            with graph.inserting_before(node):
                replace_node(node, _quantize(graph, node))
            changed = True
    for node in list(graph.nodes):
        source = node.args[0] if node.args else None
        if op_name(node) in DEQUANTIZE and not (
            isinstance(source, torch.fx.Node) and op_name(source) in QUANTIZE
        ):
            with graph.inserting_before(node):
                replace_node(node, _dequantize(graph, node))
            changed = True
    return changed


def _parameters(node: torch.fx.Node) -> tuple[torch.fx.Node, Any, Any, int | None, list[Any]]:
    """Return the input, scale, zero point, channel axis (None per tensor) and the other args.

    ``torch.export`` passes these ops' positional parameters positionally.
    """
    args: list[Any] = list(node.args)
    if "per_channel" in op_name(node):
        return args[0], args[1], args[2], int(args[3]), args[4:]
    return args[0], args[1], args[2], None, args[3:]


def _along(graph: torch.fx.Graph, value: Any, axis: int | None, rank: int) -> Any:
    """Return ``value`` (a number, or a tensor per channel along ``axis``) ready to broadcast, as float32."""
    if value is None:  # a per-channel zero point may be absent
        return 0.0
    if not isinstance(value, torch.fx.Node):
        return float(value)
    if axis is not None:
        shape = [1] * rank
        shape[axis % rank] = -1
        value = call_function(graph, aten.view_copy.default, (value, shape))
    return _as_float(graph, value)


def _as_float(graph: torch.fx.Graph, value: torch.fx.Node) -> torch.fx.Node:
    if value.meta["val"].dtype == torch.float32:
        return value
    return call_function(graph, aten._to_copy.default, (value,), {"dtype": torch.float32})


def _dequantize(graph: torch.fx.Graph, node: torch.fx.Node) -> torch.fx.Node:
    source, scale, zero_point, axis, _ = _parameters(node)
    rank = source.meta["val"].dim()
    value = call_function(graph, aten._to_copy.default, (source,), {"dtype": torch.float32})
    zero_point = _along(graph, zero_point, axis, rank)
    if isinstance(zero_point, torch.fx.Node) or zero_point != 0.0:
        value = call_function(graph, aten.sub.Tensor, (value, zero_point))
    value = call_function(graph, aten.mul.Tensor, (value, _along(graph, scale, axis, rank)))
    out_dtype = node.kwargs.get("out_dtype")
    if out_dtype not in (None, torch.float32):
        value = call_function(graph, aten._to_copy.default, (value,), {"dtype": out_dtype})
    return value


def _quantize(graph: torch.fx.Graph, node: torch.fx.Node) -> torch.fx.Node:
    source, scale, zero_point, axis, (quant_min, quant_max, dtype) = _parameters(node)
    rank = source.meta["val"].dim()
    source = _as_float(graph, source)  # bfloat16 and float16 inputs are quantized from float32
    scale = _along(graph, scale, axis, rank)
    if isinstance(scale, float):
        inverse: Any = 1.0 / scale
    else:  # 1 / scale as PyTorch computes it: a float32 division
        ones = call_function(graph, aten.full_like.default, (scale, 1.0))
        inverse = call_function(graph, aten.div.Tensor, (ones, scale))
    value = call_function(graph, aten.mul.Tensor, (source, inverse))
    value = call_function(graph, aten.round.default, (value,))
    zero_point = _along(graph, zero_point, axis, rank)
    if isinstance(zero_point, torch.fx.Node) or zero_point != 0.0:
        value = call_function(graph, aten.add.Tensor, (value, zero_point))
    value = call_function(graph, aten.clamp.default, (value, float(quant_min), float(quant_max)))
    return call_function(graph, aten._to_copy.default, (value,), {"dtype": dtype})
