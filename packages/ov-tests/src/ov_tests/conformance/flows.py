"""The test flows this backend adds to ExecuTorch's backend test suite.

A ``TestFlow`` (``executorch.backends.test.suite.flow``) names a backend and a
lowering recipe; the suite runs each of its tests once per flow.
"""

from __future__ import annotations

import importlib

from executorch.backends.test.harness.stages import Quantize
from executorch.backends.test.suite.flow import TestFlow

from ov_runtime import default_quantizer
from ov_tests.conformance.flow_names import (
    BASELINE_FLOWS,
    OV_EXECUTORCH,
    OV_EXECUTORCH_INT8,
    check_flow_names,
)
from ov_tests.conformance.tester import OvExecutorchTester

OV_EXECUTORCH_FLOW = TestFlow(
    OV_EXECUTORCH,
    backend="ov_executorch",
    tester_factory=OvExecutorchTester,
)
"""This backend, float32 on the CPU (the default compile specs)."""


def _int8_quantize_stage() -> Quantize:
    quantizer, _ = default_quantizer()
    return Quantize(quantizer=quantizer)


OV_EXECUTORCH_INT8_FLOW = TestFlow(
    OV_EXECUTORCH_INT8,
    backend="ov_executorch",
    tester_factory=OvExecutorchTester,
    quantize=True,
    quantize_stage_factory=_int8_quantize_stage,
)
"""This backend on programs quantized to int8 with PT2E the way
:func:`ov_runtime.quantize` does it (:func:`ov_runtime.default_quantizer`),
calibrated on the test's inputs, weights folded (``convert_pt2e``'s default)."""

OWN_FLOWS = {flow.name: flow for flow in (OV_EXECUTORCH_FLOW, OV_EXECUTORCH_INT8_FLOW)}


def select_flows(names: list[str]) -> dict[str, TestFlow]:
    """Return the flows called ``names``: this backend's and ExecuTorch's own.

    Raises:
        ValueError: A name that is no flow here, with the names that are; the
            built-in OpenVINO flow is missing unless ``nncf`` is installed.
    """
    check_flow_names(names)
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
