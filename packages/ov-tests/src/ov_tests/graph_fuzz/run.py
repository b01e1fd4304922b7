"""Run many graphs, count outcomes per op family, shrink each failure and write it as a test."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from ov_tests.graph_fuzz.check import Outcome, check_graph
from ov_tests.graph_fuzz.draw import Graph, draw_graph, family, value_names

FAILING = frozenset({"mismatch", "lowering error", "load error", "crash"})
"""Outcome statuses that count as failures."""


@dataclass
class Failure:
    """One failing graph: its index in the run, the shrunk graph and what failed."""

    index: int
    graph: Graph
    values: list[torch.Tensor]
    outcome: Outcome
    reproducer: Path | None = None


@dataclass
class Report:
    """Counts of one run.

    Attributes:
        seed: The run's seed; graph ``i`` is drawn from ``random.Random(f"{seed}-{i}")``.
        finite: Whether values leave NaN and the infinities out.
        statuses: Graphs per outcome status.
        families: Graphs holding each op family (``aten.add``).
        failing_families: Failing graphs holding each op family (before shrinking).
        delegated: Graphs whose program holds a delegate of this backend.
        failures: Each failing graph, shrunk.
    """

    seed: int
    finite: bool = False
    statuses: Counter[str] = field(default_factory=Counter)
    families: Counter[str] = field(default_factory=Counter)
    failing_families: Counter[str] = field(default_factory=Counter)
    delegated: int = 0
    failures: list[Failure] = field(default_factory=list)

    def summary(self) -> str:
        """A plain-text table of the counts and the failures."""
        total = sum(self.statuses.values())
        values = "finite values" if self.finite else "values with NaN and infinities"
        lines = [f"seed {self.seed}, {values}: {total} graphs, {self.delegated} with a delegate"]
        lines += [f"  {status}: {count}" for status, count in sorted(self.statuses.items())]
        owners = Counter(failure.outcome.owner or "-" for failure in self.failures)
        lines += [
            f"  failures owned by {owner}: {count}" for owner, count in sorted(owners.items())
        ]
        lines.append("op family: graphs (failing)")
        for name, count in sorted(self.families.items()):
            lines.append(f"  {name}: {count} ({self.failing_families.get(name, 0)})")
        for failure in sorted(self.failures, key=lambda failure: failure.index):
            where = f" -> {failure.reproducer}" if failure.reproducer else ""
            lines.append(
                f"graph {failure.index} [{failure.outcome.status}, {failure.outcome.owner}] "
                f"{', '.join(failure.graph.ops)}: {failure.outcome.detail}{where}"
            )
        return "\n".join(lines)

    def count(self, graph: Graph, outcome: Outcome) -> bool:
        """Count one checked graph; whether it failed."""
        self.statuses[outcome.status] += 1
        self.delegated += outcome.delegated
        families = {family(op) for op in graph.ops}
        self.families.update(families)
        if outcome.status not in FAILING:
            return False
        self.failing_families.update(families)
        return True

    def add_failure(self, failure: Failure, reproducers: Path | None) -> None:
        """Keep ``failure``, written as a pytest file into ``reproducers`` when given."""
        if reproducers is not None:
            failure.reproducer = write_reproducer(failure, self.seed, reproducers)
        self.failures.append(failure)

    def merge(self, other: Report) -> None:
        """Add the counts and failures of ``other``, a report of other graphs of the run."""
        self.statuses.update(other.statuses)
        self.families.update(other.families)
        self.failing_families.update(other.failing_families)
        self.delegated += other.delegated
        self.failures += other.failures


def _fails(graph: Graph, values: list[torch.Tensor], seed: int, status: str) -> Outcome | None:
    outcome = check_graph(graph, values, seed)
    return outcome if outcome.status == status else None


def _without_line(graph: Graph, index: int, replacement: str) -> Graph:
    name = graph.lines[index].split(" = ", 1)[0]
    pattern = re.compile(rf"\b{re.escape(name)}\b")
    lines = [pattern.sub(replacement, line) for i, line in enumerate(graph.lines) if i != index]
    outputs = list(dict.fromkeys(replacement if o == name else o for o in graph.outputs))
    outputs = [o for o in outputs if not o.startswith("x")] or outputs
    ops = [op for i, op in enumerate(graph.ops) if i != index]
    return replace(graph, lines=lines, outputs=outputs, ops=ops)


def _live(graph: Graph) -> Graph:
    """``graph`` without the lines no output depends on."""
    needed = set(graph.outputs)
    keep = []
    for index in reversed(range(len(graph.lines))):
        name, call = graph.lines[index].split(" = ", 1)
        if name in needed:
            keep.append(index)
            needed |= set(value_names(call))
    keep.reverse()
    return replace(graph, lines=[graph.lines[i] for i in keep], ops=[graph.ops[i] for i in keep])


def shrink(
    graph: Graph, values: list[torch.Tensor], seed: int, outcome: Outcome
) -> tuple[Graph, Outcome]:
    """A smaller graph that still fails the same way: one output, then fewer ops.

    Each output alone is tried first; then each call, from the last, is
    bypassed by one of the values it reads while the failure stays.
    """
    for output in graph.outputs:
        candidate = _live(replace(graph, outputs=[output]))
        if (found := _fails(candidate, values, seed, outcome.status)) is not None:
            graph, outcome = candidate, found
            break
    index = len(graph.lines) - 1
    while index >= 0 and len(graph.lines) > 1:
        call = graph.lines[index].split(" = ", 1)[1]
        for read in dict.fromkeys(value_names(call)):
            candidate = _live(_without_line(graph, index, read))
            if candidate.lines and (found := _fails(candidate, values, seed, outcome.status)):
                graph, outcome = candidate, found
                break
        index = min(index - 1, len(graph.lines) - 1)
    return graph, outcome


def _literal(value: torch.Tensor) -> str:
    def number(item: float) -> str:
        if isinstance(item, float) and not math.isfinite(item):
            return f'float("{item}")'
        return repr(item)

    flat = ", ".join(number(item) for item in value.flatten().tolist())
    return f"torch.tensor([{flat}], dtype={value.dtype}).reshape({tuple(value.shape)})"


def write_reproducer(failure: Failure, seed: int, folder: Path) -> Path:
    """Write ``failure`` as a pytest file in ``folder``; return its path."""
    graph = failure.graph
    name = f"test_fuzzed_{seed}_{failure.index}"
    values = ",\n    ".join(_literal(v) for v in failure.values)
    text = f'''"""Found by the graph fuzzer (seed {seed}, graph {failure.index}): {failure.outcome.status}.

{failure.outcome.detail}
"""

import torch

from ov_tests.graph_fuzz import Graph, check_graph

GRAPH = Graph(
    inputs={graph.inputs!r},
    lines={graph.lines!r},
    outputs={graph.outputs!r},
    ops={graph.ops!r},
    dynamic={graph.dynamic!r},
    finite={graph.finite!r},
)
VALUES = [
    {values},
]


def {name}():
    outcome = check_graph(GRAPH, VALUES, {seed + failure.index})
    assert outcome.status == "match", outcome
'''
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(text)
    return path


def check_index(
    index: int,
    seed: int,
    *,
    shrink_failures: bool = True,
    reproducers: Path | None = None,
    finite: bool = False,
) -> Report:
    """Draw, lower and check graph ``index`` of the run ``seed``; a report of that one graph.

    Args:
        index: The graph's index; it is drawn from ``random.Random(f"{seed}-{index}")``.
        seed: The run's seed.
        shrink_failures: Shrink the graph before reporting it when it fails.
        reproducers: A folder to write a failure into as a pytest file.
        finite: Draw values without NaN and the infinities.
    """
    report = Report(seed, finite)
    graph, values = draw_graph(random.Random(f"{seed}-{index}"), finite=finite)
    outcome = check_graph(graph, values, seed + index)
    failing = report.count(graph, outcome)
    if failing:
        if shrink_failures:
            graph, outcome = shrink(graph, values, seed + index, outcome)
        report.add_failure(Failure(index, graph, values, outcome), reproducers)
    return report


def run(
    graphs: int,
    seed: int,
    *,
    start: int = 0,
    shrink_failures: bool = True,
    reproducers: Path | None = None,
    finite: bool = False,
) -> Report:
    """Check graphs ``start`` to ``start + graphs - 1`` of the run ``seed`` in this process.

    Arguments as for :func:`check_index`; a crash inside OpenVINO or
    ExecuTorch ends the process (:func:`ov_tests.graph_fuzz.isolation.run_isolated`
    survives it).
    """
    report = Report(seed, finite)
    for index in range(start, start + graphs):
        report.merge(
            check_index(
                index,
                seed,
                shrink_failures=shrink_failures,
                reproducers=reproducers,
                finite=finite,
            )
        )
    return report
