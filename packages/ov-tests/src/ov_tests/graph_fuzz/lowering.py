"""Export a drawn graph and load it through ExecuTorch's own API, with this backend or without."""

from __future__ import annotations

from typing import Any

import torch

from ov_tests.graph_fuzz.draw import Graph


def export_graph(graph: Graph, values: list[torch.Tensor]) -> torch.export.ExportedProgram:
    """Export ``graph`` on ``values``, with dim 0 of every input as one dynamic dim when it asks.

    A graph that specializes dim 0, or whose inputs do not share a dim 0 of at
    least 2, is exported static and its ``dynamic`` set to False.
    """
    module = graph.module()
    if graph.dynamic and values and all(v.dim() and v.shape[0] >= 2 for v in values):
        batch = torch.export.Dim("batch", min=2, max=16)
        sizes = {v.shape[0] for v in values}
        if len(sizes) == 1:
            try:
                return torch.export.export(
                    module, tuple(values), dynamic_shapes=[{0: batch} for _ in values]
                )
            except Exception:  # the graph specializes dim 0: export it static
                graph.dynamic = False
    graph.dynamic = False
    return torch.export.export(module, tuple(values))


def loaded_method(program: torch.export.ExportedProgram, *, delegated: bool = True) -> Any:
    """``program`` lowered with ``OpenvinoPartitioner`` (or with no partitioner), loaded as a method.

    Raises:
        Exception: Whatever lowering, serializing or loading raised.
    """
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    from ov_runtime import OpenvinoPartitioner

    partitioner = [OpenvinoPartitioner()] if delegated else None
    lowered = to_edge_transform_and_lower(program, partitioner=partitioner).to_executorch()
    return Runtime.get().load_program(lowered.buffer).load_method("forward")


def executorch_alone(
    program: torch.export.ExportedProgram, values: list[torch.Tensor]
) -> list[torch.Tensor] | None:
    """The outputs of ``program`` on ExecuTorch's kernels alone (no delegate); None if it fails."""
    try:
        return list(loaded_method(program, delegated=False).execute(list(values)))
    except Exception:  # ExecuTorch's kernels alone cannot run it
        return None
