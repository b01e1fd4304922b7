"""Run graph passes in a declared order.

A pass takes a ``torch.fx.GraphModule``, rewrites its graph in place and
returns whether it changed anything. Passes work on aten and edge-dialect
graphs alike: they match nodes by op name (``aten.cumsum.default``), so this
package needs neither ExecuTorch nor OpenVINO.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import torch

from ov_spec import target_name


class GraphPass(Protocol):
    """One rewrite of a graph module, done in place."""

    def __call__(self, graph_module: torch.fx.GraphModule) -> bool:
        """Rewrite ``graph_module``; return True when the graph changed."""
        ...


def op_name(node: torch.fx.Node) -> str:
    """Return ``namespace.op.overload`` for a call_function node (aten or edge dialect), else ``""``."""
    return target_name(node.target) if node.op == "call_function" else ""


def replace_node(node: torch.fx.Node, replacement: torch.fx.Node) -> None:
    """Give ``replacement`` the metadata and the users of ``node``, then remove ``node``."""
    replacement.meta = dict(node.meta)
    node.replace_all_uses_with(replacement)
    node.graph.erase_node(node)


def run_passes(graph_module: torch.fx.GraphModule, passes: Sequence[GraphPass]) -> bool:
    """Run ``passes`` in order on ``graph_module`` and recompile it if any changed it.

    Returns:
        True when at least one pass changed the graph.
    """
    changed = False
    for graph_pass in passes:
        changed = graph_pass(graph_module) or changed
    if changed:
        graph_module.graph.lint()
        graph_module.recompile()
    return changed
