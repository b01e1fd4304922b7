"""round.decimals and linalg_solve_triangular become their decompositions' nodes in place."""

import torch

from ov_passes import INLINED, inline_decompositions


class KeptWhole(torch.nn.Module):
    def forward(self, x, a):
        solved = torch.linalg.solve_triangular(a, x, upper=True)
        return torch.round(solved, decimals=2) + 1


def test_the_ops_become_their_decompositions_and_compute_the_same():
    generator = torch.Generator().manual_seed(0)
    x, a = torch.randn(3, 2, generator=generator), torch.randn(3, 3, generator=generator)
    a = a + 3 * torch.eye(3)
    module = torch.export.export(KeptWhole(), (x, a)).module()
    assert {str(n.target) for n in module.graph.nodes} >= set(INLINED)
    assert inline_decompositions(module)
    module.graph.lint()
    module.recompile()
    assert not {str(n.target) for n in module.graph.nodes} & set(INLINED)
    assert all("val" in n.meta for n in module.graph.nodes if n.op == "call_function")
    torch.testing.assert_close(module(x, a), KeptWhole()(x, a), atol=1e-6, rtol=1e-6)
    assert not inline_decompositions(module)
