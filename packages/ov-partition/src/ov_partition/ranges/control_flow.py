"""The narrowing verdict for the graphs of ``cond`` and ``while_loop``."""

from __future__ import annotations

import torch
from torch._subclasses.fake_tensor import FakeTensor

from ov_partition.op_support import branches, op_packet
from ov_partition.ranges.constants import real_tensor
from ov_partition.ranges.intervals import INT32, within
from ov_partition.ranges.openvino_limits import FLOAT32_COMPUTED, INT64_NOT_PROVED, integer_result


def narrowing_inside(node: torch.fx.Node, *, int64: bool) -> str | None:
    """Why the graphs of a ``cond`` or ``while_loop`` may compute integers narrower, else None.

    Their values are not range-checked, so any integer division or power, and
    (with ``int64``) any int64 tensor in them, keeps the whole op on the CPU.
    """
    for attribute, graph in branches(node):
        for inner in graph.graph.nodes:
            value = inner.meta.get("val")
            written = [value] if isinstance(value, torch.Tensor) else []
            if op_packet(inner) in FLOAT32_COMPUTED and integer_result(written):
                return (
                    f"its graph {attribute.target} computes integer {op_packet(inner)}, "
                    "which OpenVINO's CPU plugin computes in float32"
                )
            wide = any(t.dtype == torch.int64 for t in written)
            if int64 and wide and not int32_constant(graph, inner):
                return (
                    f"its graph {attribute.target} holds int64 values ({inner.name}) "
                    f"{INT64_NOT_PROVED}"
                )
            nested = narrowing_inside(inner, int64=int64)
            if nested is not None:
                return nested
    return None


def int32_constant(graph: torch.fx.GraphModule, node: torch.fx.Node) -> bool:
    """Whether ``node`` reads a constant of ``graph`` whose values fit in int32."""
    tensor = getattr(graph, str(node.target), None) if node.op == "get_attr" else None
    if isinstance(tensor, FakeTensor):
        tensor = real_tensor(tensor)
    if not isinstance(tensor, torch.Tensor):
        return False
    return tensor.numel() == 0 or within((int(tensor.min()), int(tensor.max())), INT32)
