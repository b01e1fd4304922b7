"""Run graph passes in a declared order, and the helpers every pass builds nodes with.

A pass takes a ``torch.fx.GraphModule``, rewrites its graph in place and
returns whether it changed anything. Passes work on aten and edge-dialect
graphs alike: they match nodes by op name (``aten.cumsum.default``), so this
package needs neither ExecuTorch nor OpenVINO.

Passes read the dtype and shape of a node from ``node.meta["val"]``, as
``torch.export`` leaves it. Every node a pass creates gets one too
(:func:`call_function`), so a later pass sees what an earlier one built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

import torch
from torch._guards import detect_fake_mode
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.utils._pytree import tree_leaves, tree_map_only

from ov_spec import op_name


class GraphPass(Protocol):
    """One rewrite of a graph module, done in place."""

    def __call__(self, graph_module: torch.fx.GraphModule) -> bool:
        """Rewrite ``graph_module``; return True when the graph changed."""
        ...


def call_function(
    graph: torch.fx.Graph,
    target: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
) -> torch.fx.Node:
    """Insert a call of ``target`` at the graph's insertion point, with its ``meta["val"]``.

    The value is computed by running ``target`` on the ``meta["val"]`` of the
    argument nodes (fake tensors and symbolic ints) under their fake mode, the
    way ``torch.export`` computed the others.

    Raises:
        ValueError: An argument node has no ``meta["val"]``, or ``target``
            fails on the argument values; a pass that builds such a node is wrong.
    """
    node = graph.call_function(target, args, kwargs or {})
    node.meta["val"] = _fake_value(node)
    return node


def _fake_value(node: torch.fx.Node) -> Any:
    missing = [arg.name for arg in node.all_input_nodes if "val" not in arg.meta]
    if missing:
        raise ValueError(f"cannot type {node.name}: its inputs {missing} have no meta['val']")
    args, kwargs = tree_map_only(
        torch.fx.Node, lambda arg: arg.meta["val"], (node.args, node.kwargs)
    )
    leaves = tree_leaves((args, kwargs))
    # A node of constants alone (``arange``) takes the mode of the graph's inputs.
    mode = (
        detect_fake_mode(leaves)
        or detect_fake_mode([n.meta.get("val") for n in node.graph.find_nodes(op="placeholder")])
        or FakeTensorMode(shape_env=_shape_env(leaves))
    )
    args, kwargs = tree_map_only(
        torch.Tensor,
        lambda t: t if isinstance(t, FakeTensor) else mode.from_tensor(t),
        (args, kwargs),
    )
    try:
        with mode:
            return node.target(*args, **kwargs)  # type: ignore[operator]
    except Exception as error:
        raise ValueError(f"cannot type {node.name} ({op_name(node)}): {error}") from error


def _shape_env(values: list[Any]) -> Any:
    """The shape environment of the first symbolic int among ``values``, else None."""
    for value in values:
        if isinstance(value, torch.SymInt):
            return value.node.shape_env
    return None


def scalar_arguments(node: torch.fx.Node, defaults: dict[str, float]) -> list[float]:
    """The values of ``node``'s scalar arguments after its first, named as in ``defaults``.

    Each comes from the node's positional arguments in the order of
    ``defaults``, else its keyword arguments, else the default given there.
    """
    given = {**dict(zip(defaults, node.args[1:], strict=False)), **node.kwargs}
    return [float(cast("float", given.get(name, default))) for name, default in defaults.items()]


def constant_value(graph_module: torch.fx.GraphModule, value: Any) -> torch.Tensor | None:
    """The tensor a ``get_attr`` node reads (a weight or buffer of ``graph_module``), else None."""
    if not isinstance(value, torch.fx.Node) or value.op != "get_attr":
        return None
    found: Any = graph_module
    for name in str(value.target).split("."):
        found = getattr(found, name)
    return found if isinstance(found, torch.Tensor) else None


def constant(graph_module: torch.fx.GraphModule, name: str, value: torch.Tensor) -> torch.fx.Node:
    """Keep ``value`` as the buffer ``name`` of ``graph_module``; a ``get_attr`` node reading it.

    The node is inserted at the graph's insertion point, with ``value`` as its ``meta["val"]``.
    """
    graph_module.register_buffer(name, value)
    node = graph_module.graph.get_attr(name)
    node.meta["val"] = value
    return node


def reduced_dims(x: torch.fx.Node, dims: object) -> list[int]:
    """The dims of ``x`` a reduction's ``dim`` argument names, each in ``0..rank-1``.

    ``dims`` is an int, a list or tuple of ints, or None or empty for every
    dim, as PyTorch's reductions read it. ``x`` must carry ``meta["val"]``.
    """
    rank = x.meta["val"].dim()
    listed = [] if dims is None else list(dims) if isinstance(dims, list | tuple) else [dims]
    return [d % max(rank, 1) for d in listed if isinstance(d, int)] if listed else list(range(rank))


def truth_value(graph: torch.fx.Graph, x: torch.fx.Node) -> torch.fx.Node:
    """``x`` read as bools, as PyTorch reads it: ``x != 0`` (NaN is true), or ``x`` if bool."""
    value = x.meta.get("val")
    if isinstance(value, torch.Tensor) and value.dtype == torch.bool:
        return x
    return call_function(graph, torch.ops.aten.ne.Scalar, (x, 0))


def replace_node(node: torch.fx.Node, replacement: torch.fx.Node) -> None:
    """Give ``replacement`` the metadata and the users of ``node``, then remove ``node``."""
    replacement.meta = dict(node.meta)
    node.replace_all_uses_with(replacement)
    node.graph.erase_node(node)


def redirect_users(node: torch.fx.Node, replacement: torch.fx.Node, *kept: torch.fx.Node) -> None:
    """Make every user of ``node`` read ``replacement``, but ``replacement`` and ``kept``.

    Those read ``node`` itself: the nodes a rewrite built from it, which would
    otherwise read their own result.
    """
    keep = {replacement, *kept}
    node.replace_all_uses_with(replacement, delete_user_cb=lambda user: user not in keep)


def run_passes(graph_module: torch.fx.GraphModule, passes: Sequence[GraphPass]) -> bool:
    """Run ``passes`` in order on ``graph_module`` and on the graphs its control flow runs.

    Each graph a pass changed is recompiled.

    Returns:
        True when at least one pass changed the graph.
    """
    changed = False
    # The branches and loop bodies of control flow are graph modules of their own.
    for module in graph_module.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        changed_here = False
        for graph_pass in passes:
            changed_here = graph_pass(module) or changed_here
        if changed_here:
            module.graph.lint()
            module.recompile()
        changed |= changed_here
    return changed
