"""The per-flow table of a run of ExecuTorch's backend test suite.

Each test of the suite runs once per flow; its outcome is one of pytest's
(passed, failed, skipped, xfailed, xpassed). A pass where no subtest delegated
anything counts apart: the suite passes those without the backend doing work.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

COLUMNS = ("passed", "passed, nothing delegated", "failed", "xfailed", "xpassed", "skipped")


@dataclass(frozen=True)
class Outcome:
    """One test of one flow.

    Attributes:
        test: The test's id without the flow (``test_abs.py::test_abs_basic``).
        flow: The flow's name (``ov_executorch``).
        outcome: One of :data:`COLUMNS`.
        cause: Why it failed, xfailed or was skipped; empty for a pass.
    """

    test: str
    flow: str
    outcome: str
    cause: str = ""


@dataclass
class FlowTable:
    """Outcomes of a run, by flow, rendered as Markdown."""

    outcomes: list[Outcome] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        """Record one test's outcome."""
        self.outcomes.append(outcome)

    def flows(self) -> list[str]:
        """Return the flows in the order their first test ran."""
        return list(dict.fromkeys(outcome.flow for outcome in self.outcomes))

    def counts(self, flow: str) -> Counter[str]:
        """Return how many tests of ``flow`` ended in each outcome."""
        return Counter(outcome.outcome for outcome in self.outcomes if outcome.flow == flow)

    def markdown(self) -> str:
        """Return the summary table (one row per flow), then each flow's failures and skips."""
        lines = [
            "| flow | tests | " + " | ".join(COLUMNS) + " | passed of those run |",
            "|---" * (len(COLUMNS) + 3) + "|",
        ]
        for flow in self.flows():
            counts = self.counts(flow)
            total = sum(counts.values())
            passed = counts["passed"] + counts["passed, nothing delegated"]
            run = total - counts["skipped"]
            rate = f"{passed / run:.1%}" if run else "-"
            row = [flow, str(total), *(str(counts[column]) for column in COLUMNS), rate]
            lines.append("| " + " | ".join(row) + " |")
        for flow in self.flows():
            for column in ("failed", "xpassed", "xfailed", "skipped"):
                listed = [o for o in self.outcomes if o.flow == flow and o.outcome == column]
                if listed:
                    lines += ["", f"{flow}, {column}:"]
                    lines += [f"- `{o.test}`: {o.cause}" for o in listed]
        return "\n".join(lines)
