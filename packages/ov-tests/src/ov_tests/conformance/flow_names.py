"""The names of the test flows, read without importing ExecuTorch's test harness.

The command checks a ``--flows`` list against them before it starts pytest,
whose plugin imports the harness (and with it ``executorch.exir``: about 20 s
on 2 cores) to build the flows themselves (:mod:`ov_tests.conformance.flows`).
"""

from __future__ import annotations

from collections.abc import Iterable

OV_EXECUTORCH = "ov_executorch"
OV_EXECUTORCH_INT8 = "ov_executorch_int8"

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

FLOW_NAMES = (OV_EXECUTORCH, OV_EXECUTORCH_INT8, *BASELINE_FLOWS)


def check_flow_names(names: Iterable[str]) -> None:
    """Refuse names that are no flow here.

    Raises:
        ValueError: Naming the unknown names and the known ones.
    """
    unknown = [name for name in names if name not in FLOW_NAMES]
    if unknown:
        raise ValueError(f"unknown test flow(s) {unknown}; the flows are {sorted(FLOW_NAMES)}")
