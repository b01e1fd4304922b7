"""``-x`` of a float tensor with a size known only at run time keeps the sign of zero where it is read.

With a dynamic dim, OpenVINO 2026.4.1's CPU plugin computes a negation, and a
product with a scalar constant, as ``x * a + b`` with ``b = +0`` (its
``PowerStatic`` node): ``-(+0)`` gives ``+0`` where IEEE and PyTorch give
``-0``, so ``1 / -x`` of a zero is ``inf`` for ``-inf``. With static shapes the
plugin's fused subgraphs are right, and a product with a constant of one value
per element of the last dim is right in both (OpenVINO alone, 2026-12-07).

So a float ``neg`` whose input has a dynamic dim and a static last dim of at
least 2, and whose result an op reads the sign of a zero from (a divisor, the
base of ``pow``, ``atan2``, the sign of ``copysign``) or the partition returns,
becomes a product with
``full((last,), -1)``. Not every ``neg``: the plugin fuses rotary embeddings
(``cat(-x2, x1)``) into one ``RoPE`` node only when the negation is a scalar
product, and a tiny Llama lost its 4 ``RoPE`` nodes when each ``neg`` was
rewritten. A sign carried through other ops first, a last dim of 1 and one
known only at run time are left as they are (docs/exactness.md).
"""

from __future__ import annotations

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, redirect_users
from ov_spec import op_name

aten = torch.ops.aten

_NEG = "aten.neg.default"

_SIGN_READERS = {
    "aten.reciprocal": (0,),
    "aten.div": (1,),
    "aten.pow": (0,),
    "aten.atan2": (0, 1),
    "aten.copysign": (1,),
}
"""Op families to the positions of their arguments whose zero's sign their result shows."""


def _sign_read(node: torch.fx.Node) -> bool:
    """Whether an op reads the sign of a zero in ``node``'s result."""
    for user in node.users:
        if user.op == "output":  # what reads it outside the partition may see the sign
            return True
        positions = _SIGN_READERS.get(op_name(user).rsplit(".", 1)[0], ())
        if any(i < len(user.args) and user.args[i] is node for i in positions):
            return True
    return False


def _last_dim_of_dynamic(value: torch.Tensor) -> int | None:
    """The static last dim (>= 2) of a tensor with a dynamic dim, or None."""
    if value.dim() == 0 or not any(isinstance(size, torch.SymInt) for size in value.shape):
        return None
    last = value.shape[-1]
    return last if isinstance(last, int) and last >= 2 else None


@declare(Stage.REWRITES)
def negation_keeping_zero_signs(graph_module: torch.fx.GraphModule) -> bool:
    """Make a float ``neg`` of a dynamic-shape tensor whose zero sign is read a product with -1s.

    Returns:
        True when a node was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        if op_name(node) != _NEG:
            continue
        value = node.meta.get("val")
        if not isinstance(value, torch.Tensor) or not value.is_floating_point():
            continue
        if not _sign_read(node):
            continue
        last = _last_dim_of_dynamic(value)
        if last is None:
            continue
        with graph.inserting_before(node):
            minus_ones = call_function(
                graph, aten.full.default, ([last], -1.0), {"dtype": value.dtype}
            )
            product = call_function(graph, aten.mul.Tensor, (node.args[0], minus_ones))
        redirect_users(node, product)
        graph.erase_node(node)
        changed = True
    return changed
