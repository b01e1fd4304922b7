"""What each pass declares: where it runs in a pipeline, and which ops it makes convertible.

A pass states, next to its code (:func:`declare`):

- its :class:`Stage`, and the passes that must run before it (``after``) with
  the reason, which :func:`check_order` enforces on a pipeline
  (``DEFAULT_PASSES`` is checked when ``ov_passes`` is imported);
- the ops it rewrites into ops OpenVINO's frontend converts (``converts``),
  and the nodes of those ops it cannot rewrite (``limit``, which gives the
  reason). The partitioner reads these (:data:`ov_passes.REWRITES`) rather
  than keeping a list of its own, so a new pass touches this package alone.

Arm's ExecuTorch backend checks its pass order the same way: each pass names the
passes it needs, and its pass manager refuses a pipeline that breaks that.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TypeVar

import torch

from ov_passes.pipeline import GraphPass

Limit = Callable[[torch.fx.Node], "str | None"]
"""Why a pass cannot rewrite a node of an op it converts, or None when it can."""


class Stage(enum.IntEnum):
    """The stages of a pipeline, in the order they run; passes of one stage keep their own order."""

    QUANTIZATION = 0
    """Quantization and weight rewrites: the float arithmetic they build is what later passes expect."""
    ARGUMENTS = 1
    """Arguments spelled out in full, before any pass reads or copies them."""
    EMPTY_RESULTS = 2
    """Results with no element become constants, so no later pass builds on them."""
    REWRITES = 3
    """Rewrites for exactness and conversion."""
    CLEANUP = 4
    """Aliases dropped, once every rewrite has given views their sizes."""


@dataclass(frozen=True)
class Declaration:
    """One pass's declaration.

    Attributes:
        name: The pass's function name.
        stage: Where it runs in a pipeline.
        after: Names of passes that must run before it in the same pipeline.
        why: Why those passes come first.
        converts: Op names (``aten.expm1.default``) it rewrites into ops the frontend converts.
        limit: Why it cannot give a node what OpenVINO needs (a node of an op it
            converts, or of one it corrects), or None when it can; the partitioner
            leaves such a node on ExecuTorch's CPU kernels with that reason.
        kept_whole: Whether ExecuTorch must leave ``converts`` undecomposed for it
            (``Partitioner.ops_to_not_decompose``).
    """

    name: str
    stage: Stage
    after: tuple[str, ...] = ()
    why: str = ""
    converts: frozenset[str] = frozenset()
    limit: Limit | None = None
    kept_whole: bool = False


class PassOrderError(ValueError):
    """A pipeline runs a pass before one it needs, or outside its stage's order."""


_Pass = TypeVar("_Pass", bound=GraphPass)
_DECLARATIONS: dict[GraphPass, Declaration] = {}


def declare(
    stage: Stage,
    *,
    after: Sequence[str] = (),
    why: str = "",
    converts: Collection[str] = (),
    limit: Limit | None = None,
    kept_whole: bool = False,
) -> Callable[[_Pass], _Pass]:
    """Declare the decorated pass (see :class:`Declaration` for the arguments).

    Raises:
        ValueError: ``after`` is given without ``why``.
    """
    if after and not why:
        raise ValueError("a pass that must run after others says why")

    def record(graph_pass: _Pass) -> _Pass:
        name = getattr(graph_pass, "__name__", repr(graph_pass))
        _DECLARATIONS[graph_pass] = Declaration(
            name, stage, tuple(after), why, frozenset(converts), limit, kept_whole
        )
        return graph_pass

    return record


def declaration(graph_pass: GraphPass) -> Declaration:
    """The declaration of ``graph_pass``.

    Raises:
        PassOrderError: The pass declares nothing (it was not decorated with :func:`declare`).
    """
    found = _DECLARATIONS.get(graph_pass)
    if found is None:
        raise PassOrderError(f"{graph_pass!r} declares no stage: decorate it with declare()")
    return found


def check_order(passes: Sequence[GraphPass]) -> None:
    """Check that ``passes`` keep every declared order.

    Stages run in order, and each pass comes after every pass it names in
    ``after``, all of which must be in the pipeline.

    Raises:
        PassOrderError: The first broken rule, naming both passes and why the order matters.
    """
    declared = [declaration(graph_pass) for graph_pass in passes]
    position = {item.name: index for index, item in enumerate(declared)}
    for index, item in enumerate(declared):
        if index and item.stage < declared[index - 1].stage:
            raise PassOrderError(
                f"{item.name} ({item.stage.name}) runs after {declared[index - 1].name} "
                f"({declared[index - 1].stage.name}); stages run in the order of ov_passes.Stage"
            )
        for needed in item.after:
            if position.get(needed, len(declared)) >= index:
                where = "is missing" if needed not in position else "runs after it"
                raise PassOrderError(
                    f"{item.name} must run after {needed}, which {where}: {item.why}"
                )


@dataclass(frozen=True)
class Rewrites:
    """The ops a pipeline's passes make convertible, and their limits."""

    declarations: tuple[Declaration, ...]

    @classmethod
    def of(cls, passes: Sequence[GraphPass]) -> Rewrites:
        """The rewrites and limits that ``passes`` declare."""
        declared = (declaration(graph_pass) for graph_pass in passes)
        return cls(tuple(item for item in declared if item.converts or item.limit))

    @property
    def ops(self) -> frozenset[str]:
        """Every op name a pass rewrites into ops the frontend converts."""
        return frozenset().union(*(item.converts for item in self.declarations))

    @property
    def kept_whole(self) -> frozenset[str]:
        """The op names ExecuTorch must not decompose before the passes see them."""
        return frozenset().union(*(d.converts for d in self.declarations if d.kept_whole))

    def refusal(self, node: torch.fx.Node) -> str | None:
        """Why a pass cannot give ``node`` what OpenVINO needs, or None (the first limit that says so)."""
        for item in self.declarations:
            if item.limit is not None and (reason := item.limit(node)) is not None:
                return reason
        return None
