"""Accumulate bool and integer tensors in int64, as PyTorch does.

PyTorch's ``cumsum`` and ``prod`` of a bool or integer tensor (with no
``dtype`` argument) return int64. OpenVINO's CumSum and ReduceProd keep their
input's element type, so a cumsum over a bool mask counts in u8 and wraps
after 255. Casting the input to int64 first gives PyTorch's result type and range.
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function
from ov_spec import op_name

ACCUMULATING_OPS = frozenset({"aten.cumsum.default", "aten.prod.default", "aten.prod.dim_int"})

_NARROW_TYPES = frozenset({torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32})


def _input_dtype(node: torch.fx.Node) -> torch.dtype | None:
    source = node.args[0]
    if not isinstance(source, torch.fx.Node):
        return None
    value = source.meta.get("val")
    return value.dtype if isinstance(value, torch.Tensor) else None


@declare(Stage.REWRITES)
def cast_integer_accumulations_to_int64(graph_module: torch.fx.GraphModule) -> bool:
    """Insert an int64 cast before each ``cumsum``/``prod`` that reads a bool or narrow integer tensor.

    Only nodes without an explicit ``dtype`` argument are rewritten, since an
    explicit one already tells OpenVINO the result type.

    Returns:
        True when a cast was inserted.
    """
    changed = False
    for node in list(graph_module.graph.nodes):
        if op_name(node) not in ACCUMULATING_OPS or node.kwargs.get("dtype") is not None:
            continue
        dtype = _input_dtype(node)
        if dtype not in _NARROW_TYPES:
            continue
        source = node.args[0]
        assert isinstance(source, torch.fx.Node)
        with graph_module.graph.inserting_before(node):
            cast = call_function(
                graph_module.graph,
                torch.ops.aten._to_copy.default,
                (source,),
                {"dtype": torch.int64},
            )
        node.replace_input_with(source, cast)
        changed = True
    return changed
