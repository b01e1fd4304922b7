"""``var`` with PyTorch's default correction spelled out, which OpenVINO's frontend reads as 0.

``aten.var.correction(x, dims)`` with no ``correction`` (or ``None``) is the
unbiased variance, divided by ``n - 1``; OpenVINO's PyTorch frontend takes the
missing argument as 0 and divides by ``n`` (1208 where PyTorch gives 1611 for
four values). Each such node gets ``correction=1``.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_spec import op_name

_CORRECTED = frozenset({"aten.var.correction", "aten.std.correction", "aten.var_mean.correction"})


@declare(Stage.REWRITES)
def default_variance_correction(graph_module: torch.fx.GraphModule) -> bool:
    """Give each ``var``/``std`` node without a correction PyTorch's default, 1.

    Returns:
        True when a node was changed.
    """
    changed = False
    for node in graph_module.graph.nodes:
        if op_name(node) in _CORRECTED and node.kwargs.get("correction") is None:
            node.kwargs = {**node.kwargs, "correction": 1}
            changed = True
    return changed
