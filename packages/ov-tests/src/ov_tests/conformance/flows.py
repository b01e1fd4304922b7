"""The test flows this backend adds to ExecuTorch's backend test suite.

A ``TestFlow`` (``executorch.backends.test.suite.flow``) names a backend and a
lowering recipe; the suite runs each of its tests once per flow.
"""

from __future__ import annotations

import importlib

from executorch.backends.test.harness.stages import Quantize
from executorch.backends.test.suite.flow import TestFlow

from ov_runtime import default_quantizer
from ov_tests.conformance.tester import OvExecutorchTester

OV_EXECUTORCH_FLOW = TestFlow(
    "ov_executorch",
    backend="ov_executorch",
    tester_factory=OvExecutorchTester,
)
"""This backend, float32 on the CPU (the default compile specs)."""


def _int8_quantize_stage() -> Quantize:
    quantizer, _ = default_quantizer()
    return Quantize(quantizer=quantizer)


OV_EXECUTORCH_INT8_FLOW = TestFlow(
    "ov_executorch_int8",
    backend="ov_executorch",
    tester_factory=OvExecutorchTester,
    quantize=True,
    quantize_stage_factory=_int8_quantize_stage,
)
"""This backend on programs quantized to int8 with PT2E the way
:func:`ov_runtime.quantize` does it (:func:`ov_runtime.default_quantizer`),
calibrated on the test's inputs, weights folded (``convert_pt2e``'s default)."""

OWN_FLOWS = {flow.name: flow for flow in (OV_EXECUTORCH_FLOW, OV_EXECUTORCH_INT8_FLOW)}

BASELINE_FLOWS = {
    "openvino": ("executorch.backends.test.suite.flows.openvino", "OPENVINO_TEST_FLOW"),
    "openvino_int8": (
        "executorch.backends.test.suite.flows.openvino",
        "OPENVINO_INT8_TEST_FLOW",
    ),
    "xnnpack": ("executorch.backends.test.suite.flows.xnnpack", "XNNPACK_TEST_FLOW"),
    "xnnpack_static_int8_per_channel": (
        "executorch.backends.test.suite.flows.xnnpack",
        "XNNPACK_STATIC_INT8_PER_CHANNEL_TEST_FLOW",
    ),
}
"""ExecuTorch's own flows the comparison runs beside this backend's, by module and
name: its built-in OpenVINO backend (which needs ``nncf``, the
``builtin-openvino`` group) and XNNPACK, float32 and int8 (the built-in
backend's own int8 recipe, NNCF's quantizer unfolded; XNNPACK's static
per-channel one)."""


def select_flows(names: list[str]) -> dict[str, TestFlow]:
    """Return the flows called ``names``: this backend's and ExecuTorch's own.

    Raises:
        ValueError: A name that is no flow here, with the names that are; the
            built-in OpenVINO flow is missing unless ``nncf`` is installed.
    """
    unknown = [name for name in names if name not in OWN_FLOWS | BASELINE_FLOWS]
    if unknown:
        raise ValueError(
            f"unknown test flow(s) {unknown}; the flows are {sorted(OWN_FLOWS | BASELINE_FLOWS)}"
        )
    return {name: OWN_FLOWS.get(name) or _baseline_flow(name) for name in names}


def _baseline_flow(name: str) -> TestFlow:
    module, attribute = BASELINE_FLOWS[name]
    try:
        flow: TestFlow = getattr(importlib.import_module(module), attribute)
    except ImportError as error:
        raise ValueError(
            f"ExecuTorch's {name!r} test flow cannot load here ({error}); the built-in "
            "OpenVINO backend needs nncf: uv sync --group builtin-openvino"
        ) from error
    return flow


EXPECTED_FAILURES: dict[str, str] = {}
"""Tests of the suite this backend fails today, by test function, with the measured
reason; each runs as a strict xfail, so a fix shows up as an unexpected pass."""
