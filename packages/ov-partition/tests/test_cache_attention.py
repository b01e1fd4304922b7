import pytest
import torch

from ov_partition.cache_attention import KEPT_WHOLE, kept_whole


class CacheAttention(torch.nn.Module):
    """One attention step over a KV cache written at ``positions`` (transformers' static cache)."""

    keys: torch.Tensor
    values: torch.Tensor

    def __init__(self, grouped: bool, plain_attention: bool = False, dropout: float = 0.0):
        super().__init__()
        self.register_buffer("keys", torch.zeros(1, 2, 8, 4))
        self.register_buffer("values", torch.zeros(1, 2, 8, 4))
        self.grouped = grouped
        self.plain_attention = plain_attention
        self.dropout = dropout

    def forward(self, q, k, v, positions):
        self.keys.index_copy_(2, positions, k)
        self.values.index_copy_(2, positions, v)
        keys, values = self.keys, self.values
        if self.grouped:
            keys = keys.repeat_interleave(2, dim=1)
            values = values.repeat_interleave(2, dim=1)
        mask = torch.arange(8) <= positions[:, None]
        out = torch.nn.functional.scaled_dot_product_attention(
            q, keys, values, attn_mask=mask, dropout_p=self.dropout
        )
        if self.plain_attention:
            out = out + torch.nn.functional.scaled_dot_product_attention(q, q, q)
        return out


def graph_of(model):
    heads = 4 if model.grouped else 2
    inputs = (
        torch.randn(1, heads, 1, 4),
        torch.randn(1, 2, 1, 4),
        torch.randn(1, 2, 1, 4),
        torch.tensor([3]),
    )
    return torch.export.export(model, inputs).run_decompositions({}).graph


@pytest.mark.parametrize("grouped", [False, True])
def test_attention_over_a_kv_cache_is_kept_whole(grouped):
    assert kept_whole(graph_of(CacheAttention(grouped))) == KEPT_WHOLE


def test_a_program_with_other_attention_keeps_nothing_whole():
    assert kept_whole(graph_of(CacheAttention(True, plain_attention=True))) == frozenset()


def test_attention_with_dropout_is_not_kept_whole():
    assert kept_whole(graph_of(CacheAttention(False, dropout=0.5))) == frozenset()


def test_skip_ops_keep_the_decomposition():
    graph = graph_of(CacheAttention(False))
    assert kept_whole(graph, skip_ops={"aten.index_copy.default"}) == frozenset()


def test_a_program_without_attention_keeps_nothing_whole():
    class Linear(torch.nn.Module):
        def forward(self, x):
            return x * 2

    graph = torch.export.export(Linear(), (torch.ones(2),)).graph
    assert kept_whole(graph) == frozenset()
