"""Pooling arguments given once for every spatial dim are spelled out per dim.

PyTorch repeats a one-element ``kernel_size``, ``stride``, ``padding`` or
``dilation`` over every spatial dim (``max_pool2d(x, [2, 1], [1])`` strides 1
along both). OpenVINO's PyTorch frontend does not: a one-element list made
``max_pool2d_with_indices`` give one result ("Index: 1 is out of bounds"),
and ``avg_pool2d`` fail to convert (OpenVINO 2026.4), so the node stayed on
ExecuTorch's kernel, which skips NaN in max pooling.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_spec import op_name

_SPATIAL_DIMS = {
    "aten.max_pool2d_with_indices.default": 2,
    "aten.max_pool3d_with_indices.default": 3,
    "aten.avg_pool2d.default": 2,
    "aten.avg_pool3d.default": 3,
}
_LISTS = {1: "kernel_size", 2: "stride", 3: "padding", 4: "dilation"}
"""Argument positions and names of the int lists (``dilation`` of max pooling only)."""


@declare(Stage.ARGUMENTS)
def pool_arguments_per_dim(graph_module: torch.fx.GraphModule) -> bool:
    """Repeat each one-element int-list argument of a 2-D or 3-D pooling over its spatial dims.

    Returns:
        True when a node was rewritten.
    """
    changed = False
    for node in graph_module.graph.nodes:
        dims = _SPATIAL_DIMS.get(op_name(node))
        if dims is None:
            continue
        lists = (
            _LISTS if "max_pool" in op_name(node) else {p: n for p, n in _LISTS.items() if p < 4}
        )
        args, kwargs = list(node.args), dict(node.kwargs)
        for position, name in lists.items():
            if position < len(args):
                args[position] = _spelled_out(args[position], dims)
            elif name in kwargs:
                kwargs[name] = _spelled_out(kwargs[name], dims)
        if args != list(node.args) or kwargs != node.kwargs:
            node.args, node.kwargs = tuple(args), kwargs
            changed = True
    return changed


def _spelled_out(value: object, dims: int) -> object:
    if isinstance(value, (list, tuple)) and len(value) == 1 and dims > 1:
        return [value[0]] * dims
    return value
