"""Run ExecuTorch's backend test suite for this backend, and optionally beside others.

Usage::

    python -m ov_tests.conformance [operators] [models] [--flows NAMES] [--report FILE] [PYTEST OPTIONS]

Runs the named parts of the suite (both by default) from the installed
``executorch`` wheel through :mod:`ov_tests.conformance.plugin`, and prints a
table per flow: passed, failed, xfailed, skipped, and each failure's cause.
``--flows ov_executorch,openvino,xnnpack`` runs ExecuTorch's built-in OpenVINO
backend (needs the ``builtin-openvino`` group: ``uv sync --group
builtin-openvino``) and XNNPACK beside this backend in the same run; the
``*_int8`` flows run each on programs quantized to int8 first. The exit
status is pytest's; other options go to pytest (``-k abs``, ``-x``).
"""

from __future__ import annotations

import argparse
import sys

import pytest

from ov_tests.conformance.flow_names import OV_EXECUTORCH, check_flow_names

SUITES = {
    "operators": "executorch.backends.test.suite.operators",
    "models": "executorch.backends.test.suite.models",
}


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run pytest on the suite; return pytest's exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m ov_tests.conformance",
        description="Run ExecuTorch's backend test suite (operators, models) for this backend.",
    )
    parser.add_argument(
        "suites", nargs="*", metavar="SUITE", help=f"{' or '.join(SUITES)} (default: both)"
    )
    parser.add_argument(
        "--flows",
        default=OV_EXECUTORCH,
        help="comma-separated flows: ov_executorch (default), ov_executorch_int8, "
        "openvino, openvino_int8, xnnpack, xnnpack_static_int8_per_channel",
    )
    parser.add_argument("--report", help="also write the per-flow table (Markdown) here")
    args, extra = parser.parse_known_args(argv)
    unknown = [name for name in args.suites if name not in SUITES]
    if unknown:
        parser.error(f"unknown suite(s) {unknown}; the suites are {sorted(SUITES)}")
    try:  # before pytest's plugin imports ExecuTorch's harness to build the flows
        check_flow_names(args.flows.split(","))
    except ValueError as error:
        sys.stderr.write(f"ERROR: {error}\n")
        return int(pytest.ExitCode.USAGE_ERROR)
    modules = [SUITES[name] for name in args.suites or SUITES]
    report = ["--ov-report", args.report] if args.report else []
    return int(
        pytest.main(
            [
                "-p",
                "ov_tests.conformance.plugin",
                "-p",
                "no:cacheprovider",
                "--ov-flows",
                args.flows,
                *report,
                "--pyargs",
                *modules,
                *extra,
            ]
        )
    )


if __name__ == "__main__":
    sys.exit(main())
