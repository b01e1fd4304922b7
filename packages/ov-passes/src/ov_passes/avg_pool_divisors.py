"""Give average pooling PyTorch's divisor where a window runs past the padding.

With ``ceil_mode=True`` the last window can reach beyond the input and its
padding. PyTorch (``count_include_pad=True``) divides that window's sum by the
part of it inside the padded input; OpenVINO divides by the whole kernel, so
the last output position differs (by 0.1 to 0.2 on ``randn`` inputs). The
rewrite pools with ``count_include_pad=False``, whose divisor both agree on
(the elements inside the input), and multiplies by PyTorch's ratio of the two
divisors, a constant computed here from the static spatial shape: PyTorch's
own pooling of a tensor of ones.
"""

from __future__ import annotations

from typing import Any

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, constant
from ov_spec import op_name

AVG_POOLS = {
    "aten.avg_pool1d.default": (1, torch.nn.functional.avg_pool1d),
    "aten.avg_pool2d.default": (2, torch.nn.functional.avg_pool2d),
    "aten.avg_pool3d.default": (3, torch.nn.functional.avg_pool3d),
}


def _options(node: torch.fx.Node) -> list[object]:
    """Return (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)."""
    defaults: list[object] = [None, [], 0, False, True, None]
    given = list(node.args[1:])
    names = (
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
        "divisor_override",
    )
    return [
        given[i] if i < len(given) else node.kwargs.get(name, defaults[i])
        for i, name in enumerate(names)
    ]


def dynamic_ceil_mode_divisor(node: torch.fx.Node) -> str | None:
    """Why this pass cannot give ``node`` PyTorch's divisor, or None.

    The ratio it multiplies by is computed from the spatial shape, so a
    ceil-mode pooling that counts its padding over a dynamic size keeps
    OpenVINO's divisor: the partitioner leaves it on the CPU.
    """
    entry = AVG_POOLS.get(op_name(node))
    source = node.args[0] if entry and node.args else None
    value = source.meta.get("val") if isinstance(source, torch.fx.Node) else None
    if entry is None or not isinstance(value, torch.Tensor):
        return None
    _, _, padding, ceil_mode, count_include_pad, _ = _options(node)
    paddings = padding if isinstance(padding, (list, tuple)) else [padding]
    static = all(isinstance(size, int) for size in value.shape[-entry[0] :])
    if ceil_mode and count_include_pad and any(p != 0 for p in paddings) and not static:
        return (
            "OpenVINO divides a ceil-mode average pooling window that ends past the padding "
            "by the whole kernel; ov_passes gives it PyTorch's divisor for static sizes only"
        )
    return None


@declare(Stage.REWRITES, limit=dynamic_ceil_mode_divisor)
def avg_pool_divisors_as_pytorch(graph_module: torch.fx.GraphModule) -> bool:
    """Rewrite ceil-mode average pooling that counts padding, where its input shape is static.

    Returns:
        True when a node was rewritten.
    """
    changed = False
    graph = graph_module.graph
    for node in list(graph.nodes):
        entry = AVG_POOLS.get(op_name(node))
        value = node.args[0].meta.get("val") if entry and node.args else None
        if entry is None or not isinstance(value, torch.Tensor):
            continue
        dims, pool = entry
        kernel, stride, padding, ceil_mode, count_include_pad, divisor = _options(node)
        paddings = padding if isinstance(padding, (list, tuple)) else [padding]
        padded = any(isinstance(p, int) and p > 0 for p in paddings)
        spatial = list(value.shape[-dims:])
        static = all(isinstance(size, int) for size in spatial)
        if not (ceil_mode and count_include_pad and padded and divisor is None and static):
            continue
        ones = torch.ones([1] * (value.dim() - dims) + spatial)
        pooling: Any = pool  # avg_pool1d's stubs differ from avg_pool2d's
        ratio = pooling(
            ones, kernel, stride or kernel, padding, ceil_mode=True, count_include_pad=True
        )
        with graph.inserting_before(node):
            divisors = constant(
                graph_module, f"_ov_avg_pool_ratio_{node.name}", ratio.to(value.dtype)
            )
            excluding = call_function(
                graph, node.target, (node.args[0], kernel, stride, padding, True, False, None)
            )
            scaled = call_function(graph, torch.ops.aten.mul.Tensor, (excluding, divisors))
        node.replace_all_uses_with(scaled)
        graph.erase_node(node)
        changed = True
    return changed
