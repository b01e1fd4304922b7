import os

import openvino as ov
import pytest


def pytest_configure(config):
    # Programs the tests load stay out of the user's model cache (on by
    # default); test_model_cache.py sets the variable itself.
    os.environ.setdefault("OV_EXECUTORCH_CACHE_DIR", "none")


@pytest.fixture(scope="session")
def bf16_or_f32() -> str:
    """The precision OpenVINO's CPU plugin computes a bf16 request in here.

    bf16 where the CPU has bf16 units (OpenVINO lists ``BF16`` among its
    optimization capabilities), else f32: the plugin drops the hint.
    """
    capabilities = ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    return "bf16" if "BF16" in capabilities else "f32"
