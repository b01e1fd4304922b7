"""Nodes left on ExecuTorch's CPU whose kernel is missing here, or known to scramble its result.

A node the partitioner does not delegate runs on ExecuTorch's own CPU kernels,
as the out variant ``to_executorch`` gives it (``aten::scatter_reduce.two_out``
for ``aten.scatter_reduce.two``). When the runtime registered in this process
(ExecuTorch's Python bindings, with the kernels they link) has none, the
program lowers and serializes, and then fails to load (``Missing operator``).
Lowering warns with the op and the reason the node was not delegated; a C++
application that links such a kernel itself can still run the program, so it
is a warning, not an error.

ExecuTorch 1.5.1 plans ``nonzero``'s ``(count, rank)`` result in the
column-major layout of its fake kernel (strides ``(1, count)``), while its CPU
kernel writes the index pairs row by row: a result of rank 2 or more left on the
CPU reads back with its pairs mixed up. The partitioner delegates every
``nonzero`` it can (:mod:`ov_partition.pre_decomposition`); one that still stays
on the CPU (``skip_ops``, or a partition OpenVINO refused) gets a
:class:`ScrambledNonzeroWarning`.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping

import torch
from torch.export import ExportedProgram

from ov_spec import target_name


class MissingKernelWarning(UserWarning):
    """A node stays on ExecuTorch's CPU, and ExecuTorch's runtime here has no kernel for it."""


class ScrambledNonzeroWarning(UserWarning):
    """A ``nonzero`` of rank 2 or more stays on ExecuTorch's CPU, whose result reads back scrambled."""


@functools.cache
def _registered_kernels() -> frozenset[str]:
    from executorch.extension.pybindings.portable_lib import _get_operator_names

    return frozenset(_get_operator_names())


def _scrambles(node: torch.fx.Node) -> bool:
    """Whether ``node`` is a ``nonzero`` of an input of rank 2 or more (see the module docstring)."""
    if target_name(node.target) != "aten.nonzero.default":
        return False
    source = node.args[0]
    value = source.meta.get("val") if isinstance(source, torch.fx.Node) else None
    return isinstance(value, torch.Tensor) and value.dim() >= 2


def _kernel_name(target: object) -> str | None:
    """The name of the out-variant kernel ``to_executorch`` calls for an edge op, if it has one.

    The lookup is the edge op's own (``EdgeOpOverload.to_out_variant``), the one
    ``to_executorch`` uses.
    """
    overload = getattr(target, "_op", None)  # an edge op wraps its aten overload
    if not isinstance(overload, torch._ops.OpOverload) or overload.namespace != "aten":
        return None
    try:
        out = target.to_out_variant()  # type: ignore[attr-defined]
    except RuntimeError:  # no out variant: to_executorch itself says so
        return None
    return str(out.name())


def warn_of_cpu_kernels(exported_program: ExportedProgram, rejections: Mapping[str, str]) -> None:
    """Warn for each untagged node whose kernel ExecuTorch's runtime here lacks or scrambles.

    Args:
        exported_program: The partitioned program (edge dialect), delegated
            nodes carrying ``delegation_tag``.
        rejections: Why each node was not delegated, by node name.
    """
    kernels = _registered_kernels()
    for node in exported_program.graph.nodes:
        if node.op != "call_function" or "delegation_tag" in node.meta:
            continue
        reason = rejections.get(node.name, "not delegated")
        if _scrambles(node):
            warnings.warn(
                f"node {node.name} (nonzero) stays on ExecuTorch's CPU ({reason}), where "
                "ExecuTorch 1.5.1's kernel writes its index pairs row by row into a "
                "column-major plan, so they read back scrambled",
                ScrambledNonzeroWarning,
                stacklevel=2,
            )
        kernel = _kernel_name(node.target)
        if kernel is None or kernel in kernels:
            continue
        warnings.warn(
            f"node {node.name} ({kernel}) stays on ExecuTorch's CPU ({reason}), and "
            f"ExecuTorch's runtime here has no {kernel} kernel: the program will fail to load "
            "with 'Missing operator' unless the application that runs it links one",
            MissingKernelWarning,
            stacklevel=2,
        )
