"""Pooling equal to PyTorch's across its options, 1-d to 3-d."""

import functools
import itertools

import pytest
import torch

from ov_runtime import BACKEND_ID, load_program, lower, run
from ov_tests import assert_same, cpu_operators, delegate_ids
from ov_tests.models import Function

SIZES = {1: (2, 3, 9), 2: (2, 3, 9, 8), 3: (1, 2, 7, 6, 5)}


def options_of(dims, kind):
    """Each option set of one pooling op, by name: kernels, strides, padding, ceil mode."""
    options = {}
    for kernel, stride, padding, ceil_mode, count_include_pad in itertools.product(
        (2, 3), (1, 2, 3), (0, 1), (False, True), (True, False)
    ):
        if padding > kernel // 2 or (kind == "max" and not count_include_pad):
            continue
        chosen = {"kernel_size": kernel, "stride": stride, "padding": padding}
        chosen["ceil_mode"] = ceil_mode
        if kind == "avg":
            chosen["count_include_pad"] = count_include_pad
        name = f"{kind}{dims}d-" + "-".join(f"{key}={value}" for key, value in chosen.items())
        options[name] = chosen
    return options


GROUPS = list(itertools.product((1, 2, 3), ("avg", "max")))


@functools.cache
def lowered_group(dims, kind):
    """Lower one program that pools its input with every option set of one op, and run it twice.

    One lowering per op and rank instead of one per option set; each test
    then checks its own output.
    """
    pool = getattr(torch.nn.functional, f"{kind}_pool{dims}d")
    options = options_of(dims, kind)
    model = Function(lambda x: tuple(pool(x, **chosen) for chosen in options.values()))
    x = torch.randn(SIZES[dims], generator=torch.Generator().manual_seed(dims))
    lowered = lower(model, (x,))
    program = load_program(lowered.buffer)
    calls = [(x, run(program, (x,))) for x in (x, x * 3 - 1)]
    return lowered, list(options), calls


@pytest.mark.parametrize(
    ("dims", "kind", "name"),
    [
        pytest.param(dims, kind, name, id=name)
        for dims, kind in GROUPS
        for name in options_of(dims, kind)
    ],
)
def test_pooling_matches_eager(dims, kind, name):
    lowered, names, calls = lowered_group(dims, kind)
    assert set(delegate_ids(lowered)) == {BACKEND_ID}
    assert not cpu_operators(lowered), lowered.rejections
    pool = getattr(torch.nn.functional, f"{kind}_pool{dims}d")
    index = names.index(name)
    for x, outputs in calls:
        assert_same([outputs[index]], [pool(x, **options_of(dims, kind)[name])], atol=1e-6)


def test_ceil_mode_average_pooling_of_a_dynamic_size_stays_on_cpu_with_the_reason():
    pool = Function(lambda x: torch.nn.functional.avg_pool1d(x * 2, 3, 2, 1, ceil_mode=True))
    # Export asks the length to be odd here: 2 * half - 1.
    length = 2 * torch.export.Dim("half", min=3, max=32) - 1
    lowered = lower(pool, (torch.randn(1, 2, 9),), dynamic_shapes=(({2: length},),))
    assert any("ceil-mode average pooling" in reason for reason in lowered.rejections.values())
    for x in (torch.randn(1, 2, 9), torch.randn(1, 2, 13)):
        assert torch.allclose(run(lowered.buffer, (x,))[0], pool(x), atol=1e-6)
