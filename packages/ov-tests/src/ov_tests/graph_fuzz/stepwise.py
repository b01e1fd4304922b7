"""Whether a mismatch is each op's own rounding, amplified by the ops after it.

A graph can turn a difference of a unit in the last place into any other:
``cos(exp(x))`` at x = 80 reads a result whose float32 neighbours are 2**56
apart, and ``remainder``, ``floor`` and comparisons jump. A float32 sum of
terms up to 1e38 may round to anything its order of additions gives, and a
product of inf and factors whose partial product underflows is inf or NaN by
the order of its multiplications. No
tolerance on the graph's outputs tells such a graph from a wrong op, so the
graph is checked op by op: lowered again with every intermediate value as an
output, and each op run eagerly on the delegate's own values of its inputs.
When each op equals eager there (by :func:`ov_tests.graph_fuzz.compare.explained`,
with the bound on rounding that an accumulation's order allows and the range
a product's order may leave), and the
delegate's outputs are those of the first lowering, the mismatch is the graph's
conditioning, not a wrong result. A zero of the wrong sign still fails, except
from the ops whose zero sign IEEE 754 leaves open (the minimum and maximum of
±0) or that start from +0 (sums).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import torch

from ov_tests.graph_fuzz.compare import (
    TOLERANCES,
    computed_in_float64,
    differences,
    explained,
    flat,
)
from ov_tests.graph_fuzz.draw import Graph, family, value_names
from ov_tests.graph_fuzz.lowering import export_graph, loaded_method

ACCUMULATIONS = frozenset(
    {"aten.sum", "aten.mean", "aten.cumsum", "aten.mm", "aten.bmm", "aten.addmm", "aten.matmul"}
)
"""Ops whose float result is a sum of terms, rounded in an order each implementation picks.

A sum of n terms computed in any order is within ``n * eps * sum(|term|)`` of
the exact one (the classic bound of floating-point summation), so the
tolerance of such an op grows by that: the op computed in float64 on the
inputs' magnitudes, times n and its dtype's ``eps``."""

PRODUCTS = frozenset({"aten.prod"})
"""Ops whose float result is a product of factors, multiplied in an order each implementation picks.

Partial products that leave the dtype's range in some order make the result
depend on it: a product with inf is inf, or NaN once a partial product of its
small factors underflows to 0 first. PyTorch's own CPU kernel gives inf for 16
such float32 factors and NaN for 32 (graph 488 of seed 1)."""

ZERO_SIGN_OPEN = ACCUMULATIONS | frozenset(
    {"aten.min", "aten.max", "aten.amin", "aten.amax", "aten.minimum", "aten.maximum"}
    | {"aten.clamp", "aten.hardtanh", "aten.relu", "aten.sort", "aten.topk", "aten.median"}
    | {"aten.cummax", "aten.cummin"}
)
"""Ops whose result's sign of zero is not PyTorch's to define: a tie of -0 and +0, or a sum from +0."""


def rounding_amplified(graph: Graph, values: list[torch.Tensor], got: list[torch.Tensor]) -> bool:
    """Whether each op of ``graph`` equals eager on the delegate's own inputs, and ``got`` stays.

    Args:
        graph: The graph whose delegate gave ``got`` on ``values``.
        values: The call's inputs.
        got: The delegate's outputs, which differ from eager's.
    """
    names = [line.split(" = ", 1)[0] for line in graph.lines]
    exposed = replace(graph, outputs=names)
    try:
        method = loaded_method(export_graph(exposed, values))
        computed = dict(zip(names, method.execute(list(values)), strict=True))
    except Exception:  # the graph with every value as an output does not lower or run
        return False
    env = {name: value for (name, _, _), value in zip(graph.inputs, values, strict=True)}
    env.update(computed)
    if differences([env[name] for name in graph.outputs], got, [None] * len(got)):
        return False  # another partition computes it otherwise: no explanation of ``got``
    return all(
        _op_matches(line, op, env, graph.finite)
        for line, op in zip(graph.lines, graph.ops, strict=True)
    )


def _op_matches(line: str, op: str, env: dict[str, torch.Tensor], finite: bool) -> bool:
    """Whether the delegate's result of ``line`` equals eager's on the delegate's inputs."""
    name, call = line.split(" = ", 1)
    reads = list(dict.fromkeys(value_names(call)))
    inputs = [env[read] for read in reads]
    one = Graph(
        inputs=[(read, v.dtype, tuple(v.shape)) for read, v in zip(reads, inputs, strict=True)],
        lines=[line],
        outputs=[name],
        ops=[op],
        finite=finite,
    )
    try:
        with torch.no_grad():
            expected = flat(one.module()(*inputs))
    except Exception:  # eager refuses the delegate's values
        return False
    got = env[name]
    if family(op) in PRODUCTS:
        expected = [_in_another_order(one, inputs, got, expected[0])]
    slack = [_accumulation_slack(one, inputs, expected[0])] if family(op) in ACCUMULATIONS else None
    status, _ = explained(one, inputs, [got], expected, slack)
    if status == "mismatch":
        return False
    return family(op) in ZERO_SIGN_OPEN or not _zero_signs_differ(got, expected[0])


def _accumulation_slack(
    one: Graph, inputs: list[torch.Tensor], expected: torch.Tensor
) -> torch.Tensor | None:
    """``n * eps * op(|inputs|)`` for a one-op graph of an accumulation; None for non-floats."""
    if expected.dtype not in TOLERANCES:
        return None
    wide = [v.double().abs() if v.is_floating_point() else v for v in inputs]
    computed = computed_in_float64(one, wide)
    if computed is None:
        return None
    magnitude = computed[0].double().abs()
    if magnitude.shape != expected.shape:
        return None
    terms = max(v.numel() for v in inputs)
    return terms * torch.finfo(expected.dtype).eps * magnitude


def _in_another_order(
    one: Graph, inputs: list[torch.Tensor], got: torch.Tensor, expected: torch.Tensor
) -> torch.Tensor:
    """``expected`` with each element that another order of a product's factors gives as in ``got``.

    Computed in float64 on the factors' magnitudes: an order may overflow to
    inf where the product of the factors above 1 exceeds the dtype's largest
    number, and underflow to 0 where that of the factors below 1 is less than
    its smallest normal number (a 0 among them included); both make NaN
    reachable. The sign of an inf or 0 is the exact product's, as in any order.
    """
    if not expected.is_floating_point() or got.shape != expected.shape:
        return expected

    def partial(factors: Any) -> torch.Tensor | None:
        wide = [
            torch.where(factors(v.double().abs()), v.double().abs(), 1.0)
            if v.is_floating_point()
            else v
            for v in inputs
        ]
        computed = computed_in_float64(one, wide)
        return None if computed is None else computed[0].double()

    large, small = partial(lambda a: a > 1), partial(lambda a: a < 1)
    exact = computed_in_float64(one, [v.double() if v.is_floating_point() else v for v in inputs])
    if large is None or small is None or exact is None or large.shape != expected.shape:
        return expected
    info = torch.finfo(expected.dtype)
    overflows, underflows = large > info.max, small < info.tiny
    sign = exact[0].double().sign()
    reached = (
        (overflows & (got.double() == sign * math.inf))
        | (underflows & (got == 0) & (got.signbit() == exact[0].signbit()))
        | (overflows & underflows & got.isnan())
    )
    return torch.where(reached, got, expected)


def _zero_signs_differ(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """Whether a result that is exactly ±0 in both has the other sign in ``got``."""
    if not expected.is_floating_point() or got.shape != expected.shape:
        return False
    zeros = (got == 0) & (expected == 0)
    return bool((zeros & (got.signbit() != expected.signbit())).any())
