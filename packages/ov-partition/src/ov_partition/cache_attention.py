"""Attention over a KV cache, kept whole for OpenVINO's ``ScaledDotProductAttention``.

Both of ExecuTorch's LLM exports (transformers' static cache and ExecuTorch's
own Llama) write a step's keys and values into cache buffers with
``index_copy`` along the sequence dimension, then attend over the cache with
``scaled_dot_product_attention``, through a grouped-query expansion
(``unsqueeze``/``expand``/``clone``/``_unsafe_view``, or
``repeat_interleave``). ExecuTorch would decompose both ops: the attention
into matmuls, a softmax and its NaN-row handling, and the cache write into a
permute of the whole cache, an ``index_put`` and a permute back, on every
call. Kept whole, OpenVINO's frontend converts them to one
``ScaledDotProductAttention`` and one ``ScatterElementsUpdate``, and the CPU
plugin runs its own attention kernel, which it keeps for models with state
(as the cache is here, :mod:`ov_convert.states`).

Only this pattern is kept whole: neither op has an ExecuTorch portable kernel,
so a node kept whole must be delegated, and other attention (an encoder's,
with rows that may be fully masked, which PyTorch's attention answers with
zeros) keeps ExecuTorch's decomposition.
"""

from __future__ import annotations

from collections.abc import Collection

import torch

KEPT_WHOLE = frozenset({"aten.scaled_dot_product_attention.default", "aten.index_copy.default"})
"""The ops :func:`kept_whole` keeps whole."""

_ATTENTION = torch.ops.aten.scaled_dot_product_attention.default
_CACHE_WRITE = torch.ops.aten.index_copy.default
_EXPANSIONS = frozenset(
    {
        torch.ops.aten.unsqueeze.default,
        torch.ops.aten.expand.default,
        torch.ops.aten.clone.default,
        torch.ops.aten._unsafe_view.default,
        torch.ops.aten.view.default,
        torch.ops.aten.reshape.default,
        torch.ops.aten.repeat_interleave.self_int,
        torch.ops.aten.alias.default,
    }
)
"""Ops between a cache write and the attention that read the cache and nothing else (args[0])."""


def _cache_write(value: object) -> torch.fx.Node | None:
    """The ``index_copy`` of a buffer that ``value`` expands, or None."""
    while isinstance(value, torch.fx.Node) and value.target in _EXPANSIONS:
        value = value.args[0]
    if not (isinstance(value, torch.fx.Node) and value.target is _CACHE_WRITE):
        return None
    cache = value.args[0]
    return value if isinstance(cache, torch.fx.Node) and cache.op == "placeholder" else None


def _attends_over_cache(node: torch.fx.Node) -> bool:
    """Whether ``node`` is an attention without dropout whose keys and values are cache writes."""
    if node.target is not _ATTENTION:
        return False
    dropout = node.args[4] if len(node.args) > 4 else node.kwargs.get("dropout_p", 0.0)
    return bool(dropout == 0.0) and all(_cache_write(v) is not None for v in node.args[1:3])


def _attentions_reading(write: torch.fx.Node) -> list[torch.fx.Node]:
    """The attention nodes that read ``write`` through expansions."""
    found, pending = [], list(write.users)
    while pending:
        user = pending.pop()
        if user.target in _EXPANSIONS:
            pending.extend(user.users)
        elif _attends_over_cache(user):
            found.append(user)
    return found


def kept_whole(graph: torch.fx.Graph, skip_ops: Collection[str] = ()) -> frozenset[str]:
    """The ops ExecuTorch should leave undecomposed in ``graph`` (ATen dialect) for this backend.

    :data:`KEPT_WHOLE` when ``graph`` attends over a KV cache and every
    attention and ``index_copy`` in it is part of that pattern (see the module
    docstring); nothing otherwise, or when the caller keeps either op on the
    CPU (``skip_ops``), where only their decompositions have kernels.

    All or nothing, so that the partitioner needs no per-node filter:
    ExecuTorch re-traces a program whose kept ops a filter chose through
    stand-in ops whose attention output has other strides, and a ``view`` of
    that output then fails (ExecuTorch's ``_can_skip_using_EDGE_DO_NOT_DECOMP``
    names the issue).
    """
    if KEPT_WHOLE & set(skip_ops):
        return frozenset()
    attentions = [n for n in graph.nodes if n.target is _ATTENTION]
    writes = [n for n in graph.nodes if n.target is _CACHE_WRITE]
    whole = (
        bool(attentions)
        and all(_attends_over_cache(node) for node in attentions)
        and all(_attentions_reading(node) for node in writes)
    )
    return KEPT_WHOLE if whole else frozenset()
