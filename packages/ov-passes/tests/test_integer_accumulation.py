import pytest
import torch

from ov_passes import DEFAULT_PASSES, cast_integer_accumulations_to_int64, run_passes


class CumsumProd(torch.nn.Module):
    def forward(self, x):
        return x.cumsum(0), x.prod()


def graph_of(model, *inputs):
    return torch.export.export(model, inputs).module()


def casts(module):
    return [n for n in module.graph.nodes if n.target == torch.ops.aten._to_copy.default]


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32])
def test_narrow_integer_accumulations_read_int64(dtype):
    x = torch.ones(300, dtype=dtype)
    module = graph_of(CumsumProd(), x)
    assert run_passes(module, [cast_integer_accumulations_to_int64])
    assert len(casts(module)) == 2
    for cast in casts(module):
        assert cast.kwargs["dtype"] == torch.int64
        assert all("cumsum" in str(u.target) or "prod" in str(u.target) for u in cast.users)
    cumsum, prod = module(x)
    # A u8 count would wrap after 255; PyTorch counts in int64.
    assert cumsum.dtype == torch.int64 and cumsum[-1].item() == 300
    assert torch.equal(cumsum, CumsumProd()(x)[0])
    assert torch.equal(prod, CumsumProd()(x)[1])


@pytest.mark.parametrize("dtype", [torch.int64, torch.float32])
def test_wide_and_float_inputs_are_left_alone(dtype):
    module = graph_of(CumsumProd(), torch.ones(4, dtype=dtype))
    assert not cast_integer_accumulations_to_int64(module)
    assert casts(module) == []


def test_explicit_dtype_is_left_alone():
    class Explicit(torch.nn.Module):
        def forward(self, x):
            return x.cumsum(0, dtype=torch.int32)

    module = graph_of(Explicit(), torch.ones(4, dtype=torch.bool))
    assert not cast_integer_accumulations_to_int64(module)


def test_default_pipeline_includes_the_cast():
    assert cast_integer_accumulations_to_int64 in DEFAULT_PASSES
