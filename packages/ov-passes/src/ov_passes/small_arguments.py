"""``log1p``, ``expm1``, ``erf`` and ``elu`` near zero to float32's relative precision, as PyTorch computes them.

OpenVINO's CPU plugin computes these with absolute, not relative, accuracy
near zero (measured on OpenVINO 2026.4):

- ``log1p(x)`` is converted as ``log(1 + x)``, which gives 0 for
  ``x = 1e-30``, and the plugin's fused logarithm is off by up to 8e-6 at 1.
  ``softplus``, ``logsigmoid`` and ``mish`` reach OpenVINO as
  ``log1p(exp(x))``, so ``softplus(-71)`` gave 7.6e-6 for PyTorch's 1.2e-31.
- ``Erf`` gives 0 up to ``|x| = 1e-8`` and is 5% off at 1e-6.
- ``Elu`` computes ``exp(x) - 1`` on its negative side: ``elu(-1e-30)`` is 0
  (``selu`` comes as ``elu`` too).
- The frontend does not convert ``expm1`` (``celu`` reaches it as one);
  ``exp(x) - 1`` would have the same fault.

Each becomes its Taylor series where ``|x|`` is small, where the terms left out
are below float32's rounding, and the plugin's own op elsewhere, where the
result is large enough that its absolute error is a small relative one::

    log1p(x) = x - x**2/2 + x**3/3 - ... - x**6/6        |x| < 1/16, else log(1 + x)
    expm1(x) = x + x**2/2 + x**3/6 + ... + x**6/720      |x| < 1/16, else exp(x) - 1
    erf(x)   = 2/sqrt(pi) * (x - x**3/3 + x**5/10 - x**7/42)   |x| < 1/8, else erf(x)

NaN fails the ``|x| <`` test and takes the plugin's op, which keeps it NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, replace_node, scalar_arguments
from ov_spec import op_name

aten = torch.ops.aten

SERIES_BOUND = 1 / 16
"""``|x|`` below which ``log1p`` and ``expm1`` take their series: the first
term left out is under 1e-9 of the result."""
ERF_SERIES_BOUND = 1 / 8
"""``|x|`` below which ``erf`` takes its series (the first term left out, x**9/216, is under 3e-10 of it)."""

_LOG1P = (1.0, -1 / 2, 1 / 3, -1 / 4, 1 / 5, -1 / 6)
_EXPM1 = tuple(1 / math.factorial(n) for n in range(1, 7))
_ERF = tuple(2 / math.sqrt(math.pi) * c for c in (1.0, -1 / 3, 1 / 10, -1 / 42))


def _series(
    graph: torch.fx.Graph, x: torch.fx.Node, coefficients: Sequence[float], step: torch.fx.Node
) -> torch.fx.Node:
    """``x * (c0 + step * (c1 + step * (c2 + ...)))``, in Horner's form."""
    total = call_function(graph, aten.mul.Tensor, (step, coefficients[-1]))
    for coefficient in reversed(coefficients[1:-1]):
        total = call_function(graph, aten.add.Tensor, (total, coefficient))
        total = call_function(graph, aten.mul.Tensor, (total, step))
    total = call_function(graph, aten.add.Tensor, (total, coefficients[0]))
    return call_function(graph, aten.mul.Tensor, (total, x))


def _near_zero(
    graph: torch.fx.Graph,
    x: torch.fx.Node,
    bound: float,
    series: torch.fx.Node,
    elsewhere: torch.fx.Node,
) -> torch.fx.Node:
    magnitude = call_function(graph, aten.abs.default, (x,))
    small = call_function(graph, aten.lt.Scalar, (magnitude, bound))
    return call_function(graph, aten.where.self, (small, series, elsewhere))


def _log1p(graph: torch.fx.Graph, x: torch.fx.Node) -> torch.fx.Node:
    series = _series(graph, x, _LOG1P, x)
    elsewhere = call_function(
        graph, aten.log.default, (call_function(graph, aten.add.Tensor, (x, 1.0)),)
    )
    return _near_zero(graph, x, SERIES_BOUND, series, elsewhere)


def _expm1(graph: torch.fx.Graph, x: torch.fx.Node) -> torch.fx.Node:
    series = _series(graph, x, _EXPM1, x)
    elsewhere = call_function(
        graph, aten.sub.Tensor, (call_function(graph, aten.exp.default, (x,)), 1.0)
    )
    return _near_zero(graph, x, SERIES_BOUND, series, elsewhere)


def _erf(graph: torch.fx.Graph, x: torch.fx.Node) -> torch.fx.Node:
    square = call_function(graph, aten.mul.Tensor, (x, x))
    series = _series(graph, x, _ERF, square)
    elsewhere = call_function(graph, aten.erf.default, (x,))
    return _near_zero(graph, x, ERF_SERIES_BOUND, series, elsewhere)


def _elu(graph: torch.fx.Graph, node: torch.fx.Node) -> torch.fx.Node:
    """``scale * x`` where ``x > 0``, else ``scale * alpha * expm1(input_scale * x)`` (PyTorch's definition)."""
    x = node.args[0]
    assert isinstance(x, torch.fx.Node)
    alpha, scale, input_scale = scalar_arguments(
        node, {"alpha": 1.0, "scale": 1.0, "input_scale": 1.0}
    )
    negative = _expm1(graph, call_function(graph, aten.mul.Tensor, (x, input_scale)))
    negative = call_function(graph, aten.mul.Tensor, (negative, alpha * scale))
    positive = call_function(graph, aten.mul.Tensor, (x, scale))
    not_positive = call_function(graph, aten.le.Scalar, (x, 0.0))
    return call_function(graph, aten.where.self, (not_positive, negative, positive))


_REWRITES = {
    "aten.log1p.default": lambda graph, node: _log1p(graph, node.args[0]),
    "aten.erf.default": lambda graph, node: _erf(graph, node.args[0]),
    "aten.expm1.default": lambda graph, node: _expm1(graph, node.args[0]),
    "aten.elu.default": _elu,
}


@declare(
    Stage.REWRITES,
    after=("half_math_in_float32",),
    why="its series of a bfloat16 or float16 argument would add in that dtype, so it reads the float32 copy",
    converts={"aten.expm1.default"},
)
def small_arguments_by_series(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite float ``log1p``, ``expm1``, ``erf`` and ``elu`` to keep their relative precision near zero.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        rewrite = _REWRITES.get(op_name(node))
        value = node.meta.get("val")
        if rewrite is None or not (isinstance(value, torch.Tensor) and value.is_floating_point()):
            continue
        with graph.inserting_before(node):
            x = node.args[0]
            if isinstance(x, torch.fx.Node) and not x.meta["val"].is_floating_point():
                # PyTorch computes an integer input in the result's dtype; in the
                # input's, |int32 min| wraps negative and takes the series.
                cast = call_function(graph, aten._to_copy.default, (x,), {"dtype": value.dtype})
                node.args = (cast, *node.args[1:])
            replacement = rewrite(graph, node)
        replace_node(node, replacement)
        changed = True
    return changed
