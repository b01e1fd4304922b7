"""torchao's affine quantization ops as the arithmetic of torchao's reference implementation.

torchao's quantized tensors export three ops that OpenVINO's frontend does not
convert and for which ExecuTorch 1.5.1 has no kernel (``to_executorch`` fails
with "Missing out variants" when they stay outside a delegate):

- ``torchao.dequantize_affine``, which every configuration exports for its
  weights (``IntxWeightOnlyConfig``: int8 or int4 values, per channel or per
  group), and for activations with the two below;
- ``torchao.choose_qparams_affine`` and ``torchao.quantize_affine``, which
  configurations that quantize activations at run time export
  (``Int8DynamicActivationIntxWeightConfig``, the int8-activation, int4-weight
  scheme ExecuTorch's XNNPACK LLM recipe uses): each token's scale and zero
  point are chosen from its values, then the token is quantized and dequantized
  before the Linear.

Each becomes the arithmetic of torchao's reference (``torchao.quantization.
quant_primitives``: ``_choose_qparams_affine``, ``_quantize_affine_no_dtype_cast``,
``_dequantize_affine_no_dtype_check``), so the delegate computes what eager
computes. A dequantized constant weight is the ``Constant (integer) -> Convert ->
[Subtract zero point] -> Multiply scale`` pattern OpenVINO keeps as a compressed
weight.

Blocks: every element of a block shares one scale and zero point. A dimension
that its block splits into more than one block of more than one element is
viewed as ``[blocks, block]``; a block of the whole dimension is one block, a
block of 1 one per element (torchao's ``_get_reduction_params``). Sizes known
only at run time are kept where a block is 1 or the whole dimension; a view
takes at most one of them (as ``-1``).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, constant_value, replace_node
from ov_spec import op_name

aten = torch.ops.aten

AFFINE_DEQUANTIZE = "torchao.dequantize_affine.default"
AFFINE_QUANTIZE = "torchao.quantize_affine.default"
AFFINE_QPARAMS = "torchao.choose_qparams_affine.default"
AFFINE_OPS = frozenset({AFFINE_DEQUANTIZE, AFFINE_QUANTIZE, AFFINE_QPARAMS})
MAPPING_TYPES = ("ASYMMETRIC", "SYMMETRIC", "SYMMETRIC_NO_CLIPPING_ERR")
"""The mapping types ``choose_qparams_affine`` accepts (torchao's ``MappingType`` names)."""


@dataclass(frozen=True)
class Blocks:
    """How a tensor's blocks lie, as view arguments (``-1`` for the one size known at run time).

    Attributes:
        blocked: The shape that puts each split dimension's blocks on a dimension of their own.
        per_block: ``blocked`` with each block's dimension 1: the parameters' shape.
        reduced: The dimensions of ``blocked`` that a block spans.
    """

    blocked: list[Any]
    per_block: list[Any]
    reduced: list[int]


def blocks(shape: torch.Size, block_size: list[Any]) -> Blocks | str:
    """The block layout of a tensor of ``shape``, or why it cannot be given as views.

    ``block_size`` holds numbers, or nodes of a size known only at run time.
    """
    blocked: list[Any] = []
    per_block: list[Any] = []
    reduced: list[int] = []
    for size, given in zip(shape, block_size, strict=True):
        block: Any = given.meta.get("val") if isinstance(given, torch.fx.Node) else given
        if block == 1:
            blocked.append(size)
            per_block.append(size)
        elif _same_size(size, block):
            reduced.append(len(blocked))
            blocked.append(size)
            per_block.append(1)
        elif isinstance(size, int) and isinstance(block, int) and size % block == 0:
            reduced.append(len(blocked) + 1)
            blocked += [size // block, block]
            per_block += [size // block, 1]
        else:
            return f"a block of {block} over a dimension of size {size}"
    if sum(not isinstance(size, int) for size in blocked) > 1:
        return "more than one size known only at run time in its blocks"
    return Blocks(_view_sizes(blocked), _view_sizes(per_block), reduced)


def _same_size(size: Any, block: Any) -> bool:
    """Whether a block spans the whole dimension, its size a number or the same symbol."""
    if isinstance(size, int) or isinstance(block, int):
        return bool(size == block)
    return (
        isinstance(size, torch.SymInt)
        and isinstance(block, torch.SymInt)
        and (size.node.expr == block.node.expr)
    )


def _view_sizes(shape: Any) -> list[Any]:
    """``shape`` as a view's argument: a size known only at run time as ``-1``."""
    return [size if isinstance(size, int) else -1 for size in shape]


def _arguments(node: torch.fx.Node) -> dict[str, Any]:
    """``node``'s arguments by name, with the schema's defaults for those not given."""
    schema = node.target._schema  # type: ignore[union-attr]
    given: dict[str, Any] = {}
    for index, argument in enumerate(schema.arguments):
        if index < len(node.args):
            given[argument.name] = node.args[index]
        elif argument.name in node.kwargs:
            given[argument.name] = node.kwargs[argument.name]
        else:
            given[argument.name] = argument.default_value if argument.has_default_value() else None
    return given


def affine_limit(node: torch.fx.Node) -> str | None:
    """Why a torchao affine op cannot become arithmetic here, or None when it can.

    The partitioner leaves such a node on ExecuTorch's CPU (which has no kernel
    for it, so lowering warns that the program will not load).
    """
    name = op_name(node)
    if name not in AFFINE_OPS:
        return None
    given = _arguments(node)
    source = given["input"]
    value = source.meta.get("val") if isinstance(source, torch.fx.Node) else None
    if not isinstance(value, torch.Tensor):
        return f"{name} of an input without a known shape"
    if name == AFFINE_QPARAMS:
        if given["mapping_type"] not in MAPPING_TYPES:
            return f"choose_qparams_affine's mapping type {given['mapping_type']!r}"
        if given["quant_min"] is None or given["quant_max"] is None:
            return "choose_qparams_affine without quant_min and quant_max"
    if name == AFFINE_QUANTIZE and (given["quant_min"] is None or given["quant_max"] is None):
        return "quantize_affine without quant_min and quant_max"
    layout = blocks(value.shape, list(given["block_size"]))
    if isinstance(layout, str):
        return f"{name} with {layout}"
    return None


@declare(
    Stage.QUANTIZATION,
    converts={AFFINE_QPARAMS, AFFINE_QUANTIZE, AFFINE_DEQUANTIZE},
    limit=affine_limit,
)
def affine_quantization_as_arithmetic(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite torchao's ``choose_qparams_affine``, ``quantize_affine`` and ``dequantize_affine``.

    As torchao's reference computes them, over the block layout of :func:`blocks`:

    - ``choose_qparams_affine``: ``lo = min(amin(x), 0)`` and
      ``hi = max(amax(x), 0)`` per block, then ``ASYMMETRIC``:
      ``scale = max((hi - lo) / (quant_max - quant_min), eps)`` and
      ``zero_point = clamp(quant_min - round(lo / scale), quant_min, quant_max)``;
      ``SYMMETRIC``: ``scale = max(max(-lo, hi) / ((quant_max - quant_min) / 2), eps)``;
      ``SYMMETRIC_NO_CLIPPING_ERR``: the larger of ``lo / quant_min`` and
      ``hi / quant_max``, at least ``eps``; the symmetric zero point is
      ``(quant_max + quant_min + 1) // 2``. ``eps`` defaults to the smallest
      normal number of ``x``'s dtype;
    - ``quantize_affine``: ``clamp(round(x * (1 / scale)) + zero_point, quant_min,
      quant_max)`` in ``x``'s dtype, then the integer dtype;
    - ``dequantize_affine``: ``(q.to(output_dtype) - zero_point) * scale``.

    ``round`` rounds half to even, as ``torch.round`` does. Nodes
    :func:`affine_limit` refuses are left as they are.

    torchao exports one quantization of the activations per Linear, so the
    query, key and value projections of one input quantize it three times:
    repeats of a node (the same op on the same arguments; these ops are pure)
    are computed once.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = _merge_repeats(graph)
    for node in list(graph.nodes):
        name = op_name(node)
        if name not in AFFINE_OPS or affine_limit(node):
            continue
        with graph.inserting_before(node):
            if name == AFFINE_QPARAMS:
                _replace_results(node, _choose_qparams(graph, node))
            elif name == AFFINE_QUANTIZE:
                replace_node(node, _quantize(graph, node))
            else:
                replace_node(node, _dequantize(graph_module, node))
        changed = True
    return changed


def _zeros(graph_module: torch.fx.GraphModule, value: Any) -> bool:
    """Whether ``value`` is a constant of zeros: a symmetric weight's zero points.

    Subtracting them changes no value (``q - 0`` is ``q``, signs included), and
    OpenVINO's CPU plugin takes twice as long over a FullyConnected whose
    compressed weight has a zero-point Subtract (642 against 312 µs for an
    8192x960 int4 weight at f32, OpenVINO 2026.4.1), zeros or not.
    """
    constant = constant_value(graph_module, value)
    return constant is not None and not bool(constant.any())


def _merge_repeats(graph: torch.fx.Graph) -> bool:
    """Make each repeat of an affine node (or of a ``getitem`` of one) the first; True if any was."""
    first: dict[Any, torch.fx.Node] = {}
    merged = False
    for node in list(graph.nodes):
        source = node.args[0] if node.target is operator.getitem else node
        if not isinstance(source, torch.fx.Node) or op_name(source) not in AFFINE_OPS:
            continue
        key = (node.target, _hashable(node.args), _hashable(node.kwargs))
        if key in first:
            node.replace_all_uses_with(first[key])
            graph.erase_node(node)
            merged = True
        else:
            first[key] = node
    return merged


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((key, _hashable(item)) for key, item in value.items()))
    return value


def _layout(node: torch.fx.Node, given: dict[str, Any]) -> Blocks:
    layout = blocks(given["input"].meta["val"].shape, list(given["block_size"]))
    assert isinstance(layout, Blocks)  # affine_limit refused the others
    return layout


def _to(graph: torch.fx.Graph, value: torch.fx.Node, dtype: torch.dtype) -> torch.fx.Node:
    if value.meta["val"].dtype == dtype:
        return value
    return call_function(graph, aten._to_copy.default, (value,), {"dtype": dtype})


def _view(graph: torch.fx.Graph, value: torch.fx.Node, shape: list[Any]) -> torch.fx.Node:
    """``value`` viewed as ``shape``; itself where it has that shape already."""
    if _view_sizes(value.meta["val"].shape) == shape:
        return value
    return call_function(graph, aten.view_copy.default, (value, shape))


def _per_block(graph: torch.fx.Graph, value: Any, layout: Blocks) -> torch.fx.Node | None:
    """A scale or zero point shaped to broadcast over the blocked input; None when absent."""
    if not isinstance(value, torch.fx.Node) or value.meta["val"].numel() == 0:
        return None  # torchao reads an empty zero point as none
    return _view(graph, value, layout.per_block)


def _choose_qparams(graph: torch.fx.Graph, node: torch.fx.Node) -> list[torch.fx.Node]:
    given = _arguments(node)
    layout = _layout(node, given)
    source: torch.fx.Node = given["input"]
    dtype = source.meta["val"].dtype
    quant_min, quant_max = given["quant_min"], given["quant_max"]
    eps = given["eps"] if given["eps"] is not None else torch.finfo(dtype).smallest_normal
    value = _view(graph, source, layout.blocked)
    lowest = highest = value  # a block of one element is its own extremes
    if layout.reduced:
        lowest = call_function(graph, aten.amin.default, (value, layout.reduced, True))
        highest = call_function(graph, aten.amax.default, (value, layout.reduced, True))
    low = call_function(graph, aten.clamp.default, (lowest, None, 0.0))
    high = call_function(graph, aten.clamp.default, (highest, 0.0))
    mapping = given["mapping_type"]
    if mapping == "ASYMMETRIC":
        spread = call_function(graph, aten.sub.Tensor, (high, low))
        scale = call_function(graph, aten.div.Tensor, (spread, float(quant_max - quant_min)))
        scale = call_function(graph, aten.clamp.default, (scale, eps))
        ratio = call_function(graph, aten.div.Tensor, (low, scale))
        steps = call_function(graph, aten.round.default, (ratio,))
        negated = call_function(graph, aten.neg.default, (steps,))
        zero_point = call_function(graph, aten.add.Tensor, (negated, quant_min))
        zero_point = call_function(graph, aten.clamp.default, (zero_point, quant_min, quant_max))
    else:
        if mapping == "SYMMETRIC":
            negated = call_function(graph, aten.neg.default, (low,))
            bound = call_function(graph, aten.maximum.default, (negated, high))
            half_range = float(quant_max - quant_min) / 2
            scale = call_function(graph, aten.div.Tensor, (bound, half_range))
        else:
            below = call_function(graph, aten.div.Tensor, (low, float(quant_min)))
            above = call_function(graph, aten.div.Tensor, (high, float(quant_max)))
            larger = call_function(graph, aten.gt.Tensor, (below, above))
            scale = call_function(graph, aten.where.self, (larger, below, above))
        middle = int((quant_max + quant_min + 1) / 2)
        zero_point = call_function(graph, aten.full_like.default, (scale, middle))
        scale = call_function(graph, aten.clamp.default, (scale, eps))
    results = []
    for result, out in zip((scale, zero_point), node.meta["val"], strict=True):
        shaped = result
        if given["keepdim"]:
            shaped = _view(graph, result, _view_sizes(out.shape))
        elif layout.reduced:
            shaped = call_function(graph, aten.squeeze_copy.dims, (result, layout.reduced))
        results.append(_to(graph, shaped, out.dtype))
    return results


def _replace_results(node: torch.fx.Node, results: list[torch.fx.Node]) -> None:
    """Make each ``getitem`` of ``node`` read its result, then remove ``node``."""
    for user in list(node.users):
        replace_node(user, results[user.args[1]])  # type: ignore[index]
    node.graph.erase_node(node)


def _quantize(graph: torch.fx.Graph, node: torch.fx.Node) -> torch.fx.Node:
    given = _arguments(node)
    layout = _layout(node, given)
    source: torch.fx.Node = given["input"]
    value = _view(graph, source, layout.blocked)
    scale = _per_block(graph, given["scale"], layout)
    ones = call_function(graph, aten.full_like.default, (scale, 1.0))
    inverse = call_function(graph, aten.div.Tensor, (ones, scale))
    value = call_function(graph, aten.mul.Tensor, (value, inverse))
    value = call_function(graph, aten.round.default, (value,))
    zero_point = _per_block(graph, given["zero_point"], layout)
    if zero_point is not None:
        zero_point = _to(graph, zero_point, value.meta["val"].dtype)
        value = call_function(graph, aten.add.Tensor, (value, zero_point))
    bounds = (given["quant_min"], given["quant_max"])
    value = call_function(graph, aten.clamp.default, (value, *bounds))
    value = _view(graph, value, _view_sizes(source.meta["val"].shape))
    return _to(graph, value, node.meta["val"].dtype)


def _dequantize(graph_module: torch.fx.GraphModule, node: torch.fx.Node) -> torch.fx.Node:
    graph = graph_module.graph
    given = _arguments(node)
    layout = _layout(node, given)
    source: torch.fx.Node = given["input"]
    output_dtype = node.meta["val"].dtype
    value = _view(graph, source, layout.blocked)
    value = _to(graph, value, output_dtype)
    zero_point = _per_block(graph, given["zero_point"], layout)
    if zero_point is not None and not _zeros(graph_module, given["zero_point"]):
        zero_point = _to(graph, zero_point, output_dtype)
        value = call_function(graph, aten.sub.Tensor, (value, zero_point))
    value = call_function(
        graph, aten.mul.Tensor, (value, _per_block(graph, given["scale"], layout))
    )
    value = _view(graph, value, _view_sizes(source.meta["val"].shape))
    return _to(graph, value, output_dtype)
