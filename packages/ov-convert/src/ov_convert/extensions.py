"""Converters for aten ops OpenVINO's FX frontend lacks, added through its own extension API.

``ConversionExtension`` is how OpenVINO's PyTorch frontend takes a converter for
an op it has no translator for: the converter reads the node through a
``NodeContext`` and returns OpenVINO outputs. ``aten.scatter_reduce.two``, the
form ``torch.export`` gives ``Tensor.scatter_reduce``, is one: OpenVINO's
``ScatterElementsUpdate`` (opset 12) computes it whole, with the reductions
``sum``, ``prod``, ``min``, ``max`` and ``mean`` and ``use_init_val`` for
``include_self``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import openvino as ov
import torch
from openvino import opset12, opset13
from openvino.frontend import NodeContext
from openvino.frontend.pytorch import ConversionExtension

from ov_spec import target_name

_SCATTER_REDUCE = "aten.scatter_reduce.two"

_REDUCTIONS = {"sum": "sum", "prod": "prod", "amax": "max", "amin": "min", "mean": "mean"}
"""PyTorch's ``reduce`` names to ``ScatterElementsUpdate``'s ``reduction`` names."""


def _scatter_reduce(context: NodeContext) -> list[ov.Output]:
    """``scatter_reduce(self, dim, index, src, include_self)`` with ``reduce`` as an attribute.

    PyTorch reads only the part of ``src`` that ``index`` covers, where
    ``ScatterElementsUpdate`` takes updates of the indices' shape, so ``src`` is
    sliced to it first.
    """
    data, dim, indices, updates = (context.get_input(i) for i in range(4))
    include_self = bool(context.get_values_from_const_input(4))
    reduction = _REDUCTIONS[str(context.get_attribute("reduce"))]
    rank = len(indices.get_partial_shape())
    zeros = opset13.constant(np.zeros(rank, dtype=np.int64))
    ones = opset13.constant(np.ones(rank, dtype=np.int64))
    covered = opset13.slice(updates, zeros, opset13.shape_of(indices), ones)
    scattered = opset12.scatter_elements_update(
        data, indices, covered, dim, reduction=reduction, use_init_val=include_self
    )
    return [scattered.output(0)]


def _scatter_reduce_arguments(node: torch.fx.Node) -> None:
    # OpenVINO's Python NodeContext reads a str only as a keyword attribute and a
    # bool only as a constant input, so ``reduce`` and ``include_self`` swap
    # places. The graph goes to OpenVINO's decoder alone, never to PyTorch.
    self, dim, index, src, reduce = node.args
    include_self = node.kwargs.get("include_self", True)
    node.args, node.kwargs = (self, dim, index, src, include_self), {"reduce": reduce}


_EXTENSIONS: dict[str, tuple[Callable[[NodeContext], list[ov.Output]], Callable[..., None]]] = {
    _SCATTER_REDUCE: (_scatter_reduce, _scatter_reduce_arguments)
}

EXTENSION_OPS = frozenset(_EXTENSIONS)
"""The aten ops (``aten.scatter_reduce.two``) converted here rather than by the frontend."""


def conversion_extensions() -> list[ConversionExtension]:
    """The frontend extensions for :data:`EXTENSION_OPS`, to add before ``FrontEnd.load``."""
    return [ConversionExtension(name, converter) for name, (converter, _) in _EXTENSIONS.items()]


def prepare_for_extensions(graph_modules: Sequence[torch.fx.GraphModule]) -> None:
    """Put the arguments of each node an extension converts where its converter reads them."""
    for graph_module in graph_modules:
        for node in graph_module.graph.nodes:
            extension = (
                _EXTENSIONS.get(target_name(node.target)) if node.op == "call_function" else None
            )
            if extension is not None:
                extension[1](node)
        graph_module.recompile()
