"""Pooling equal to PyTorch's across its options, 1-d to 3-d."""

import itertools

import pytest
import torch

from ov_tests import check_program
from ov_tests.models import Function

SIZES = {1: (2, 3, 9), 2: (2, 3, 9, 8), 3: (1, 2, 7, 6, 5)}


def cases():
    for dims, kind, kernel, stride, padding, ceil_mode, count_include_pad in itertools.product(
        (1, 2, 3), ("avg", "max"), (2, 3), (1, 2, 3), (0, 1), (False, True), (True, False)
    ):
        if padding > kernel // 2 or (kind == "max" and not count_include_pad):
            continue
        options = {"kernel_size": kernel, "stride": stride, "padding": padding}
        options["ceil_mode"] = ceil_mode
        if kind == "avg":
            options["count_include_pad"] = count_include_pad
        name = f"{kind}{dims}d-" + "-".join(f"{key}={value}" for key, value in options.items())
        yield pytest.param(dims, kind, options, id=name)


@pytest.mark.parametrize(("dims", "kind", "options"), list(cases()))
def test_pooling_matches_eager(dims, kind, options):
    pool = getattr(torch.nn.functional, f"{kind}_pool{dims}d")
    x = torch.randn(SIZES[dims])
    check_program(
        Function(lambda x: pool(x, **options)), (x,), atol=1e-6, more_inputs=[(x * 3 - 1,)]
    )


def test_ceil_mode_average_pooling_of_a_dynamic_size_stays_on_cpu_with_the_reason():
    from ov_runtime import lower, run

    pool = Function(lambda x: torch.nn.functional.avg_pool1d(x * 2, 3, 2, 1, ceil_mode=True))
    # Export asks the length to be odd here: 2 * half - 1.
    length = 2 * torch.export.Dim("half", min=3, max=32) - 1
    lowered = lower(pool, (torch.randn(1, 2, 9),), dynamic_shapes=(({2: length},),))
    assert any("ceil-mode average pooling" in reason for reason in lowered.rejections.values())
    for x in (torch.randn(1, 2, 9), torch.randn(1, 2, 13)):
        assert torch.allclose(run(lowered.buffer, (x,))[0], pool(x), atol=1e-6)
