"""Give OpenVINO's Slice its bounds as 1-D tensors when they are symbolic ints.

``x[:n]`` with an int input ``n`` exports as ``slice(x, 0, None, n)``.
OpenVINO's PyTorch frontend passes ``n`` (a 0-d i64 parameter) to Slice as is,
and Slice takes only 1-D bounds, so the partition fails to convert. Each
symbolic bound becomes ``unsqueeze(scalar_tensor(n, dtype=int64), 0)``; the
graph then only serves the frontend, which reads the new node as a tensor.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function
from ov_spec import op_name

SLICE_OPS = frozenset({"aten.slice.Tensor", "aten.slice_copy.Tensor"})
_BOUND_POSITIONS = (2, 3)  # slice(self, dim, start, end, step)


def _is_symbolic_int(value: object) -> bool:
    return isinstance(value, torch.fx.Node) and isinstance(
        value.meta.get("val"), (int, torch.SymInt)
    )


@declare(Stage.REWRITES)
def slice_bounds_as_tensors(graph_module: torch.fx.GraphModule) -> bool:
    """Replace each symbolic ``start``/``end`` of a slice with a 1-D int64 tensor node.

    Returns:
        True when a bound was replaced.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) not in SLICE_OPS:
            continue
        args = list(node.args)
        for position in _BOUND_POSITIONS:
            if position >= len(args) or not _is_symbolic_int(args[position]):
                continue
            with graph.inserting_before(node):
                scalar = call_function(
                    graph,
                    torch.ops.aten.scalar_tensor.default,
                    (args[position],),
                    {"dtype": torch.int64},
                )
                args[position] = call_function(graph, torch.ops.aten.unsqueeze.default, (scalar, 0))
            changed = True
        node.args = tuple(args)
    return changed
