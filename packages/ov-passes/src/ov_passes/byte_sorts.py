"""``sort`` and ``topk`` of int8 and uint8 tensors run on int32 copies.

OpenVINO's CPU plugin failed to compile a ``TopK`` of an ``i8[1, 1]`` or
``u8[1, 1]`` input whose values an ``any`` read ("Default output not
supported", OpenVINO 2026.4), so such a program lowered and did not load.
Widening to int32 orders the same values the same way; the sorted values are
narrowed back, exactly, and the indices are unchanged.
"""

from __future__ import annotations

import operator

import torch

from ov_passes.pipeline import call_function, op_name, redirect_users

aten = torch.ops.aten

_SORTS = frozenset({"aten.topk.default", "aten.sort.default", "aten.sort.stable"})
_BYTES = (torch.int8, torch.uint8)


def byte_sorts_in_int32(graph_module: torch.fx.GraphModule) -> bool:
    """Sort int8/uint8 tensors as int32 and narrow the sorted values back.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        x = node.args[0] if node.args else None
        if op_name(node) not in _SORTS or not isinstance(x, torch.fx.Node):
            continue
        dtype = getattr(x.meta.get("val"), "dtype", None)
        if dtype not in _BYTES:
            continue
        with graph.inserting_before(node):
            wide = call_function(graph, aten._to_copy.default, (x,), {"dtype": torch.int32})
        node.replace_input_with(x, wide)
        node.meta["val"] = tuple(
            v.to(torch.int32) if i == 0 else v for i, v in enumerate(node.meta["val"])
        )
        for reader in list(node.users):
            if reader.target is not operator.getitem or reader.args[1] != 0:
                continue
            reader.meta["val"] = node.meta["val"][0]
            with graph.inserting_after(reader):
                narrow = call_function(graph, aten._to_copy.default, (reader,), {"dtype": dtype})
            redirect_users(reader, narrow)
        changed = True
    return changed
