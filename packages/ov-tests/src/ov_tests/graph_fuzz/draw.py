"""Seeded random graphs of the ops the partitioner claims, and values drawn to hurt.

The ops are every core ATen overload the partitioner says lowering converts
(``ov_partition.converts``), less those whose results are random or
uninitialized. A call's arguments come from the op's own schema: tensors from
the graph so far, dims valid for the tensor, small ints and scalars, and each
candidate call is run eagerly on the first call's values, so a graph holds only
calls PyTorch accepts. A graph is Python source (``forward``), which builds the
module, names each step in a report and is the reproducer a mismatch writes.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from ov_partition import converts
from ov_spec import target_name

DTYPES = (
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.int8,
    torch.uint8,
    torch.int32,
    torch.int64,
    torch.bool,
)
"""The dtypes of graph inputs and results."""

MAX_ELEMENTS = 4096
"""Largest result a call may have; larger ones are drawn again."""

# Ops whose results are random, uninitialized or not tensors, and ops that
# read no tensor: comparing them with eager says nothing.
_LEFT_OUT = (
    "rand",
    "randn",
    "dropout",
    "bernoulli",
    "empty",
    "_local_scalar_dense",
    "sym_size",
    "arange",
    "full.default",
    "scalar_tensor",
    "as_strided",
)


_UNORDERED_TIES = frozenset({"aten.sort.default", "aten.topk.default"})
"""Ops whose index output orders ties as it likes; only their values are compared."""


@functools.cache
def fuzzed_ops() -> tuple[torch._ops.OpOverload, ...]:
    """The core ATen overloads lowering converts, sorted by name, less the random and tensorless ones.

    The ops the backend's preprocess makes convertible count only once the
    backend is registered (``ov_partition.preprocess_converts``), so it is
    imported first: otherwise a process that draws before it lowers anything
    would draw from 5 ops fewer, and a seed would name other graphs there.
    """
    import ov_convert  # noqa: F401  (registers the backend)

    found = []
    for name in torch._C._dispatch_get_all_op_names():
        if not name.startswith("aten::"):
            continue
        packet_name, _, overload = name.removeprefix("aten::").partition(".")
        packet = getattr(torch.ops.aten, packet_name, None)
        op = getattr(packet, overload or "default", None) if packet is not None else None
        if not isinstance(op, torch._ops.OpOverload) or torch.Tag.core not in op.tags:
            continue
        full = target_name(op)
        if op._schema.is_mutable or any(word in full for word in _LEFT_OUT):
            continue
        if converts(full):
            found.append(op)
    return tuple(sorted(found, key=target_name))


def value_names(source: str) -> list[str]:
    """The graph values (inputs ``x0``, results ``v3``) a line of source reads, in order."""
    return re.findall(r"\b[vx]\d+\b", source)


def family(op_name: str) -> str:
    """The op family a report counts by: the op without its overload (``aten.add``)."""
    return op_name.rsplit(".", 1)[0]


@dataclass
class Graph:
    """A drawn graph: input specs, source lines of ``forward`` and the values it returns.

    Attributes:
        inputs: Name, dtype and shape of each input.
        lines: One assignment per op call, ``v3 = aten.add.Tensor(v1, x0)``.
        outputs: Names of the values returned, in order.
        ops: The op name of each line.
        dynamic: Whether dim 0 of every input is exported as one dynamic dim.
        finite: Whether its values leave NaN and the infinities out.
    """

    inputs: list[tuple[str, torch.dtype, tuple[int, ...]]]
    lines: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    dynamic: bool = False
    finite: bool = False

    def source(self) -> str:
        """The module's ``forward`` as Python source (``aten`` is ``torch.ops.aten``)."""
        names = ", ".join(name for name, _, _ in self.inputs)
        body = [f"    {line}" for line in self.lines] or ["    pass"]
        returned = ", ".join(self.outputs)
        return "\n".join([f"def forward(self, {names}):", *body, f"    return ({returned},)"])

    def module(self, aten: Any = torch.ops.aten) -> torch.nn.Module:
        """A fresh module whose ``forward`` is :meth:`source`, its ``aten`` the ops it calls."""
        namespace: dict[str, Any] = {"aten": aten, "torch": torch}
        exec(compile(self.source(), "<graph>", "exec"), namespace)
        module: torch.nn.Module = type(
            "Fuzzed", (torch.nn.Module,), {"forward": namespace["forward"]}
        )()
        return module


def hurting_values(
    rng: random.Random, dtype: torch.dtype, shape: Sequence[int], *, finite: bool = False
) -> torch.Tensor:
    """A tensor whose values hurt: ties, ±0, NaN, ±inf, subnormals, huge and tiny, integer extremes.

    About a third of the elements are special values of the dtype, a third are
    ties drawn from {0, 1, 2, 3} and the rest are ordinary (normal for floats,
    a wide range for ints); ``finite=True`` leaves NaN and the infinities out.
    """
    count = math.prod(shape)
    if dtype == torch.bool:
        return torch.tensor([rng.random() < 0.5 for _ in range(count)]).reshape(shape)
    if dtype.is_floating_point:
        info = torch.finfo(dtype)
        special = [0.0, -0.0, info.tiny / 4, -info.tiny, info.max / 2, -info.max / 4]
        special += [info.eps, 1e-30, 1e30] + ([] if finite else [math.nan, math.inf, -math.inf])
        ordinary = [lambda: rng.gauss(0, 1), lambda: rng.gauss(0, 100), lambda: rng.uniform(-1, 1)]
    else:
        info_i = torch.iinfo(dtype)
        special = [0, info_i.min, info_i.max, info_i.min + 1, info_i.max - 1, -1, 1]
        special = [v for v in special if info_i.min <= v <= info_i.max]
        low, high = max(info_i.min, -1000), min(info_i.max, 1000)
        ordinary = [lambda: rng.randint(low, high), lambda: rng.randint(info_i.min, info_i.max)]
    values: list[float] = []
    for _ in range(count):
        draw = rng.random()
        if draw < 0.33:
            values.append(rng.choice(special))
        elif draw < 0.66:
            values.append(rng.randint(0, 3))
        else:
            values.append(rng.choice(ordinary)())
    tensor = torch.tensor(values, dtype=torch.float64 if dtype.is_floating_point else torch.int64)
    return tensor.to(dtype).reshape(shape)


def _shape(rng: random.Random) -> tuple[int, ...]:
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4])
    return tuple(
        rng.choice([0, 1, 2, 3, 3, 4, 5]) if rng.random() < 0.1 else rng.randint(1, 5)
        for _ in range(rank)
    )


def _broadcasts(a: torch.Tensor, b: torch.Tensor) -> bool:
    try:
        torch.broadcast_shapes(a.shape, b.shape)  # type: ignore[no-untyped-call]
    except RuntimeError:
        return False
    return True


class _Drawer:
    """Draws one call's arguments from the op's schema over the values of a graph so far."""

    def __init__(self, rng: random.Random, env: dict[str, torch.Tensor]) -> None:
        self.rng = rng
        self.env = env

    def call(self, op: torch._ops.OpOverload) -> tuple[str, list[Any]] | None:
        """The rendered arguments and their values for a call of ``op``, or None if it cannot draw."""
        rendered: list[str] = []
        values: list[Any] = []
        first: torch.Tensor | None = None
        for argument in op._schema.arguments:
            if argument.kwarg_only:
                break  # keyword-only arguments keep their defaults
            if argument.has_default_value() and self.rng.random() < 0.4:
                break
            drawn = self._argument(argument, first)
            if drawn is None:
                if argument.has_default_value():
                    break
                return None
            text, value = drawn
            if first is None and isinstance(value, torch.Tensor):
                first = value
            rendered.append(text)
            values.append(value)
        return ", ".join(rendered), values

    def _tensor(self, first: torch.Tensor | None) -> tuple[str, torch.Tensor]:
        names = list(self.env)
        if first is not None:
            matching = [n for n in names if _broadcasts(self.env[n], first)]
            names = matching or names
        name = self.rng.choice(names)
        return name, self.env[name]

    def _index(self) -> tuple[str, torch.Tensor] | None:
        # PyTorch documents an index as int64; eager skips the check for an empty one, which
        # ExecuTorch's kernels then refuse (graphs 1,028 and 2,845 of seed 0).
        indices = {n: t for n, t in self.env.items() if t.dtype == torch.int64}
        if not indices:
            return None
        name = self.rng.choice(sorted(indices))
        return name, indices[name]

    def _argument(self, argument: Any, first: torch.Tensor | None) -> tuple[str, Any] | None:
        kind, name, rng = str(argument.type), argument.name, self.rng
        rank = first.dim() if first is not None else 0
        value: Any
        if kind == "Tensor":
            return self._index() if name == "index" else self._tensor(first)
        if kind == "List[Tensor]":
            pairs = [self._tensor(first) for _ in range(rng.randint(1, 3))]
            return f"[{', '.join(n for n, _ in pairs)}]", [t for _, t in pairs]
        if kind in ("int", "SymInt"):
            if name == "dim":
                value = rng.randint(-max(rank, 1), max(rank, 1) - 1)
            else:
                value = rng.choice([0, 1, 1, 2, 3, -1])
            return repr(value), value
        if kind in ("List[int]", "List[SymInt]", "Optional[List[int]]"):
            if name in ("dim", "dims") and first is not None:
                dims = list(range(rank))
                rng.shuffle(dims)  # "dims" is a permutation (permute, flip), "dim" a subset
                value = dims if name == "dims" else dims[: rng.randint(1, max(rank, 1))]
            elif name in ("size", "sizes", "shape") and first is not None:
                value = rng.choice([list(first.shape), [-1], [1, *first.shape]])
            else:
                value = [rng.randint(1, 2) for _ in range(rng.randint(1, 2))]
            return repr(value), value
        if kind == "bool":
            # ``sorted=False`` leaves the order of topk's values unspecified (graph 356 of seed 1).
            value = rng.random() < 0.5 or name == "sorted"
            return repr(value), value
        if kind in ("float", "Scalar"):
            integral = first is not None and not first.is_floating_point()
            choices = (
                [0, 1, -1, 2, 3]
                if integral or (kind == "Scalar" and rng.random() < 0.5)
                else [0.5, -1.5, 2.0, 1e-3, -0.0]
            )
            value = rng.choice(choices)
            return repr(value), value
        return None


def _render_value(value: torch.Tensor) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and value.dtype in DTYPES
        and value.numel() <= MAX_ELEMENTS
        and not value.is_complex()
    )


def draw_graph(
    rng: random.Random, *, max_ops: int = 12, finite: bool = False
) -> tuple[Graph, list[torch.Tensor]]:
    """Draw a graph of 1 to ``max_ops`` calls and the first call's input values.

    ``finite`` draws values without NaN and the infinities (:func:`hurting_values`).

    Every call runs eagerly while it is drawn; a call PyTorch refuses, or whose
    result is not a tensor of :data:`DTYPES` within :data:`MAX_ELEMENTS`, is
    drawn again (up to 50 tries a step). The graph returns each result no later
    call reads.
    """
    while True:
        graph, values = _draw(rng, max_ops, finite)
        if graph.lines:
            return graph, values


def _draw(rng: random.Random, max_ops: int, finite: bool) -> tuple[Graph, list[torch.Tensor]]:
    ops = fuzzed_ops()
    inputs, env = [], {}
    for index in range(rng.randint(1, 3)):
        dtype, shape = rng.choice(DTYPES), _shape(rng)
        inputs.append((f"x{index}", dtype, shape))
        env[f"x{index}"] = hurting_values(rng, dtype, shape, finite=finite)
    graph = Graph(inputs, dynamic=rng.random() < 0.25, finite=finite)
    read: set[str] = set()
    for step in range(rng.randint(1, max_ops)):
        for _ in range(50):
            op = rng.choice(ops)
            drawn = _Drawer(rng, env).call(op)
            if drawn is None:
                continue
            text, values = drawn
            try:
                with torch.no_grad():
                    result = op(*values)
            except Exception:  # PyTorch refuses this call: draw another
                continue
            pick = ""
            if isinstance(result, (tuple, list)):
                if not result:
                    continue
                # PyTorch leaves the order of tied indices of an unstable sort unspecified.
                unordered = target_name(op) in _UNORDERED_TIES
                position = 0 if unordered else rng.randrange(len(result))
                result, pick = result[position], f"[{position}]"
            if not _render_value(result):
                continue
            name = f"v{step}"
            graph.lines.append(f"{name} = aten.{op._opname}.{op._overloadname}({text}){pick}")
            graph.ops.append(target_name(op))
            read.update(value_names(text))
            env[name] = result
            break
    produced = [line.split(" = ", 1)[0] for line in graph.lines]
    graph.outputs = [n for n in produced if n not in read] or produced[-1:]
    return graph, [env[name] for name, _, _ in inputs]
