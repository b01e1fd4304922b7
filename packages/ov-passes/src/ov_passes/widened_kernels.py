"""Ops whose input dtype OpenVINO's CPU plugin has no kernel, or no exact one, for run on a wider copy.

Each program below lowered and then failed to load (OpenVINO 2026.4):

* ``sort`` and ``topk`` of int8 and uint8: the plugin failed to compile a
  ``TopK`` of an ``i8[1, 1]`` or ``u8[1, 1]`` input whose values an ``any``
  read ("Default output not supported").
* ``max_pool2d_with_indices`` and ``max_pool3d_with_indices`` of bfloat16:
  the plugin has no bf16 ``MaxPool`` with an indices output and its reference
  fallback has none either ("MaxPool from opset8 and opset14 is supported
  only with one output").

Others it computes less exactly than PyTorch in bfloat16 and float16
(:data:`HALF_MATH`).

Widening (int8/uint8 to int32, bfloat16 to float32) keeps every value and
its order, so the first result is narrowed back exactly and the indices are
unchanged.
"""

from __future__ import annotations

import operator

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, redirect_users
from ov_spec import op_name

aten = torch.ops.aten

_BYTES_AS_INT32 = {torch.int8: torch.int32, torch.uint8: torch.int32}
_BFLOAT16_AS_FLOAT32 = {torch.bfloat16: torch.float32}

WIDENED: dict[str, dict[torch.dtype, torch.dtype]] = {
    "aten.topk.default": _BYTES_AS_INT32,
    "aten.sort.default": _BYTES_AS_INT32,
    "aten.sort.stable": _BYTES_AS_INT32,
    "aten.max_pool2d_with_indices.default": _BFLOAT16_AS_FLOAT32,
    "aten.max_pool3d_with_indices.default": _BFLOAT16_AS_FLOAT32,
}
"""Op name to the input dtypes it runs wider, and the dtype each is widened to."""


_HALVES_AS_FLOAT32 = {torch.bfloat16: torch.float32, torch.float16: torch.float32}

HALF_MATH: dict[str, dict[torch.dtype, torch.dtype]] = dict.fromkeys(
    (
        "aten.log2.default",
        "aten.log10.default",
        "aten.log1p.default",
        "aten.erf.default",
        "aten.elu.default",
        "aten.cumsum.default",
        "aten.var.correction",
        "aten.rsqrt.default",
        "aten.leaky_relu.default",
    ),
    _HALVES_AS_FLOAT32,
)
"""Float ops OpenVINO computes less exactly than PyTorch in bfloat16 and float16.

Measured on 405 values against float64 (OpenVINO 2026.4): PyTorch computes
these in float32 and rounds once (within 0.38% in bfloat16), where the plugin
was off by up to 0.87% (``log2``, ``log10``: its frontend divides ``log(x)`` by
``log(2)`` rounded to the input's dtype, so ``log2(2)`` of float16 gave
0.9995), 4.6% (``log1p``), 0.64% (``erf``) and 1.3% (``elu``, so ``selu``).
Its ``CumSum`` of bfloat16 adds in bfloat16: the running sums of 200 values
of ``randn * 10`` drifted by 24 where eager, which accumulates in float32, is
within 0.5. A ``var`` in bfloat16 rounds each step of its decomposition (mean,
difference, square, sum): the variances of 64 rows of 300 ``randn * 10`` were
all off eager's, by up to 1.1% (float16: 45 of 64, by up to 0.08%). Its
bfloat16 ``rsqrt`` beside a ``sqrt`` of the same tensor was a unit in the last
place off for 126 of 1,000 values (OpenVINO 2026.4.1): it rounded the square
root to bfloat16 first. PyTorch 2.13 rounds once in its vectorized loop (and
rounds the square root first only in its scalar loop over a tensor's last
values past a multiple of 32). A half-precision ``leaky_relu`` multiplied by
its slope rounded to the dtype (0.010002 for 0.01 in float16) and passed the
product on unrounded: ``cos(leaky_relu(x))`` of a float16 -16376 gave 0.908,
where PyTorch's -163.75 gives 0.926 (graph 2,094 of the fuzzer's seed 1).
"""


def _on_wider_copy(node: torch.fx.Node, widths: dict[torch.dtype, torch.dtype]) -> bool:
    """Run ``node`` on a wider copy of its first argument, narrowing its values back.

    Its result, or its first result (the values), is narrowed back to the
    input's dtype; indices are left as they are. False when ``node``'s input
    has no dtype in ``widths``.
    """
    graph, x = node.graph, node.args[0] if node.args else None
    dtype = getattr(x.meta.get("val"), "dtype", None) if isinstance(x, torch.fx.Node) else None
    wider = widths.get(dtype) if isinstance(dtype, torch.dtype) else None
    if wider is None or not isinstance(x, torch.fx.Node):
        return False
    with graph.inserting_before(node):
        wide = call_function(graph, aten._to_copy.default, (x,), {"dtype": wider})
    node.replace_input_with(x, wide)
    if isinstance(node.meta["val"], torch.Tensor):  # one result: narrowed back itself
        node.meta["val"] = node.meta["val"].to(wider)
        with graph.inserting_after(node):
            narrow = call_function(graph, aten._to_copy.default, (node,), {"dtype": dtype})
        redirect_users(node, narrow)
        return True
    node.meta["val"] = tuple(v.to(wider) if i == 0 else v for i, v in enumerate(node.meta["val"]))
    for reader in list(node.users):
        if reader.target is not operator.getitem or reader.args[1] != 0:
            continue
        reader.meta["val"] = node.meta["val"][0]
        with graph.inserting_after(reader):
            narrow = call_function(graph, aten._to_copy.default, (reader,), {"dtype": dtype})
        redirect_users(reader, narrow)
    return True


def _widened(
    graph_module: torch.fx.GraphModule, table: dict[str, dict[torch.dtype, torch.dtype]]
) -> bool:
    """Run each op of ``table`` whose input has a listed dtype on a wider copy; True if one ran."""
    changed = False
    for node in list(graph_module.graph.nodes):
        widths = table.get(op_name(node))
        changed |= widths is not None and _on_wider_copy(node, widths)
    return changed


@declare(Stage.REWRITES)
def half_math_in_float32(graph_module: torch.fx.GraphModule) -> bool:
    """Compute each op of :data:`HALF_MATH` of a bfloat16 or float16 tensor in float32, as PyTorch does.

    Returns:
        True when a node was rewritten.
    """
    return _widened(graph_module, HALF_MATH)


@declare(
    Stage.REWRITES,
    after=("nan_through_clamps_and_maxima",),
    why="the NaN-aware max pooling it builds may be bfloat16, which OpenVINO pools with indices only when widened",
)
def narrow_kernels_widened(graph_module: torch.fx.GraphModule) -> bool:
    """Run each op of :data:`WIDENED` on a wider copy of its input; narrow its values back.

    Returns:
        True when a node was rewritten.
    """
    return _widened(graph_module, WIDENED)
