"""Max pooling windows whose maximum is the lowest value of their dtype, as in PyTorch.

OpenVINO's CPU ``MaxPool`` starts each window at the lowest finite value of
its dtype and takes an element only where it is greater (measured on
2026.4.1). A window of ``-inf`` alone then gives the lowest float, not
``-inf``, and a window whose maximum is that lowest value (``-inf`` or the
lowest float; 0 in uint8, -128 in int8) gives index 0. PyTorch's kernel
starts at ``-inf`` and the window's first element, so it gives ``-inf`` and
the index of the first element greater than ``-inf``, else the window's
first element.

Pooling the float keys ``not (x <= lowest)`` (1.0 or 0.0) finds that index:
its first 1.0, else, on a window of ties at 0.0, which OpenVINO resolves to
the first element, the window's first element. The pass selects it where the
pooled value is the lowest value, and ``-inf`` where no key of the window is
1.0. A pooling whose indices the graph does not read is left to
``nan_propagation``, whose pooling of ``isnan(x)`` tells windows of ``-inf``
alone too, so such a pooling (ResNet's) costs no second one. Other integer
pools are left alone: OpenVINO gave int16 and int64 ones right, and the
partitioner delegates an int32 one (wrong at its most negative value) only
for values within ``2**24`` (``ov_partition.ranges``).
"""

from __future__ import annotations

import math
import operator

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, redirect_users
from ov_spec import op_name

aten = torch.ops.aten

_MAX_POOLS = frozenset(
    {"aten.max_pool2d_with_indices.default", "aten.max_pool3d_with_indices.default"}
)
_BYTES = frozenset({torch.uint8, torch.int8})


def _lowest(dtype: torch.dtype) -> tuple[float, float] | None:
    """The value below which PyTorch's keys are 0, and OpenVINO's lowest window value; None if right."""
    if dtype.is_floating_point:
        return -math.inf, float(torch.finfo(dtype).min)
    if dtype in _BYTES:
        lowest = float(torch.iinfo(dtype).min)
        return lowest, lowest
    return None


@declare(Stage.REWRITES)
def max_pool_windows_at_the_lowest_value(graph_module: torch.fx.GraphModule) -> bool:
    """Give max pooling windows at their dtype's lowest value PyTorch's index and value.

    Only poolings whose indices the graph reads are rewritten (see above).

    Returns:
        True when a node's results were rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        x = node.args[0] if op_name(node) in _MAX_POOLS else None
        value = x.meta.get("val") if isinstance(x, torch.fx.Node) else None
        if not isinstance(value, torch.Tensor):
            continue
        limits = _lowest(value.dtype)
        readers = {u.args[1]: u for u in node.users if u.target is operator.getitem}
        if limits is None or 1 not in readers:
            continue
        below, lowest = limits
        with graph.inserting_before(max(readers.values()).next):
            # NaN counts as above, so that a window holding it keeps its NaN.
            above = call_function(
                graph, aten.logical_not.default, (call_function(graph, aten.le.Scalar, (x, below)),)
            )
            keys = call_function(graph, aten._to_copy.default, (above,), {"dtype": torch.float32})
            pooled = call_function(graph, node.target, (keys, *node.args[1:]), dict(node.kwargs))
            values = readers.get(0) or call_function(graph, operator.getitem, (node, 0))
            at_lowest = call_function(graph, aten.le.Scalar, (values, lowest))
            first_above = call_function(graph, operator.getitem, (pooled, 1))
            index = call_function(graph, aten.where.self, (at_lowest, first_above, readers[1]))
            redirect_users(readers[1], index)
            if 0 in readers and value.dtype.is_floating_point:
                any_above = call_function(graph, operator.getitem, (pooled, 0))
                none_above = call_function(graph, aten.eq.Scalar, (any_above, 0.0))
                minus_inf = call_function(
                    graph, aten.scalar_tensor.default, (-math.inf,), {"dtype": value.dtype}
                )
                selected = call_function(graph, aten.where.self, (none_above, minus_inf, values))
                redirect_users(values, selected, at_lowest)
        changed = True
    return changed
