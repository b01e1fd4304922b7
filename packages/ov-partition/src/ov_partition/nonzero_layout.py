"""Warn of a ``nonzero`` left on ExecuTorch's CPU, whose result reads back scrambled.

ExecuTorch 1.5.1 plans ``nonzero``'s ``(count, rank)`` result in the
column-major layout of its fake kernel (strides ``(1, count)``), while its CPU
kernel writes the index pairs row by row: a result of rank 2 or more left on the
CPU reads back with its pairs mixed up. A delegate writes the layout ExecuTorch
planned, and the partitioner gives every ``nonzero`` a bool input OpenVINO reads
exactly (:mod:`ov_partition.pre_decomposition`), so it is delegated. One that
still stays on the CPU (``skip_ops``, or a partition OpenVINO refused) gets this
warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import torch
from torch.export import ExportedProgram

from ov_partition.op_support import op_name


class ScrambledNonzeroWarning(UserWarning):
    """A ``nonzero`` of rank 2 or more stays on ExecuTorch's CPU, whose result reads back scrambled."""


def warn_of_scrambled_nonzeros(program: ExportedProgram, rejections: Mapping[str, str]) -> None:
    """Warn for each untagged ``nonzero`` of an input of rank 2 or more.

    Args:
        program: The partitioned program (edge dialect), delegated nodes
            carrying ``delegation_tag``.
        rejections: Why each node was not delegated, by node name.
    """
    for node in program.graph.nodes:
        if node.op != "call_function" or op_name(node) != "aten.nonzero.default":
            continue
        source = node.args[0]
        value = source.meta.get("val") if isinstance(source, torch.fx.Node) else None
        if "delegation_tag" in node.meta or not isinstance(value, torch.Tensor) or value.dim() < 2:
            continue
        warnings.warn(
            f"node {node.name} (nonzero) stays on ExecuTorch's CPU "
            f"({rejections.get(node.name, 'not delegated')}), where ExecuTorch 1.5.1's kernel "
            "writes its index pairs row by row into a column-major plan, so they read back "
            "scrambled",
            ScrambledNonzeroWarning,
            stacklevel=2,
        )
