"""Pytest plugin: run ExecuTorch's backend test suite in place for this backend.

Load it with ``-p ov_tests.conformance.plugin`` and point pytest at the suite in
the installed wheel::

    pytest -p ov_tests.conformance.plugin --pyargs executorch.backends.test.suite.operators

The suite's ``conftest.py`` makes one test per test function and flow from
``executorch.backends.test.suite.flow.all_flows()``. This plugin replaces that
list by the flows named with ``--ov-flows`` (this backend's float32 flow by
default) before the suite's ``conftest.py`` reads it, marks this backend's
known failures as strict xfails with their reasons
(:data:`ov_tests.conformance.flows.EXPECTED_FAILURES`), and ends the run with a
table per flow (:mod:`ov_tests.conformance.report`).
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ov_tests.conformance.flow_names import FLOW_NAMES, OV_EXECUTORCH
from ov_tests.conformance.report import FlowTable, Outcome
from ov_tests.tiers import runs_operator_suite

if TYPE_CHECKING:
    from executorch.backends.test.suite.flow import TestFlow

# Filled only when the run collects the suite: importing its harness (and with
# it ExecuTorch's compiler) costs about 20 s, which no other run pays.
_selected: dict[str, TestFlow] = {}
_table = FlowTable()


def _selected_flows() -> dict[str, TestFlow]:
    return dict(_selected)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--ov-flows`` and ``--ov-report``."""
    group = parser.getgroup("ov-executorch conformance")
    group.addoption(
        "--ov-flows",
        default=OV_EXECUTORCH,
        help=f"comma-separated flows of ExecuTorch's backend test suite to run: "
        f"{', '.join(FLOW_NAMES)} (default: {OV_EXECUTORCH}, this backend; openvino is "
        "ExecuTorch's built-in OpenVINO backend and needs nncf)",
    )
    group.addoption(
        "--ov-report",
        type=Path,
        help="also write the per-flow table (Markdown) to this file",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Select the flows before the suite's ``conftest.py`` is imported, if the run collects it."""
    namespace = early_config.known_args_namespace
    if not runs_operator_suite(namespace.file_or_dir, full=getattr(namespace, "full", False)):
        return
    import executorch.backends.test.suite.flow as suite_flow

    from ov_tests.conformance.flows import select_flows

    names = [name for name in namespace.ov_flows.split(",") if name]
    try:
        flows = select_flows(names)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from error
    _selected.update(flows)
    suite_flow.all_flows = _selected_flows


def pytest_configure(config: pytest.Config) -> None:
    """Declare what the suite's ``conftest.py`` uses before its own configure hook runs.

    pytest finds that ``conftest.py`` during collection, after it has already
    put the flows' markers on its fixture.
    """
    for flow in _selected.values():
        config.addinivalue_line("markers", f"flow_{flow.name}: a test of the {flow.name} flow")
        config.addinivalue_line("markers", f"backend_{flow.backend}: a test of {flow.backend}")
    if not _selected:
        return
    # Programs the suite leaves ops on the CPU for that ExecuTorch has no kernel
    # for (median, _embedding_bag): the suite skips them at run time, and the
    # partitioner's warning says the same at lowering.
    config.addinivalue_line("filterwarnings", "default::ov_partition.MissingKernelWarning")
    # The suite's test modules import its TestFlow class, whose name reads as a test class.
    config.addinivalue_line("filterwarnings", "ignore:cannot collect test class 'TestFlow'")
    # The models suite builds GoogLeNet and Inception V3 without weights, and
    # torchvision warns that their default initialization will change.
    config.addinivalue_line(
        "filterwarnings", "ignore:The default weight initialization of :FutureWarning"
    )


def _flow_of(item: pytest.Item) -> TestFlow | None:
    callspec = getattr(item, "callspec", None)
    flow = callspec.params.get("test_runner") if callspec is not None else None
    return flow if any(flow is selected for selected in _selected.values()) else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark this backend's known failures as strict xfails, each with its measured reason."""
    if OV_EXECUTORCH not in _selected:
        return
    from ov_tests.conformance.flows import EXPECTED_FAILURES

    for item in items:
        reason = EXPECTED_FAILURES.get(getattr(item, "originalname", item.name))
        if _flow_of(item) is _selected[OV_EXECUTORCH] and reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


def _first_lines(error: BaseException | None) -> str:
    """Return an error's type and first line, with the suite's difference line if it has one."""
    if error is None:
        return ""
    lines = [line.strip() for line in str(error).strip().splitlines()]
    kept = lines[:1] + [line for line in lines[1:] if line.startswith("Difference")]
    return f"{type(error).__name__}: {' '.join(kept)}"[:300]


def _skip_cause(record: Any) -> str:
    """Say why the suite's runner did not run a subtest (``TestResult.SKIPPED``)."""
    from executorch.backends.test.suite.runner import UNSUPPORTED_PORTABLE_OPS

    if record.error is not None:
        return f"not a backend failure: {_first_lines(record.error)}"
    left = sorted(set(record.undelegated_op_counts or ()) & UNSUPPORTED_PORTABLE_OPS)
    if left:
        return (
            f"left on ExecuTorch's CPU: {', '.join(left)}, whose portable kernel the suite "
            "does not run"
        )
    return "a 5-D convolution, which the suite does not run on ExecuTorch's portable kernels"


def _cause(item: pytest.Item, report: pytest.TestReport) -> str:
    """Return the failing subtest's stage and error, or the skip or xfail reason."""
    from executorch.backends.test.suite.reporting import TestResult

    if str(report.longrepr).startswith("[XPASS(strict)]"):
        return f"passed, though expected to fail: {str(report.longrepr).removeprefix('[XPASS(strict)] ')}"
    runner = getattr(item, "funcargs", {}).get("test_runner")
    records = getattr(runner, "_results", [])
    for record in records:
        if record.result.is_backend_failure():
            return f"{record.result.to_detail_str()}; {_first_lines(record.error)}"
    for record in records:
        if record.result == TestResult.SKIPPED:
            return _skip_cause(record)
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return report.longreprtext.strip().splitlines()[-1][:300] if report.longreprtext else ""


def _outcome(item: pytest.Item, report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed and str(report.longrepr).startswith("[XPASS(strict)]"):
        return "xpassed"  # a strict xfail that passed: pytest reports it as failed
    if report.passed:
        from executorch.backends.test.suite.reporting import TestResult

        runner = getattr(item, "funcargs", {}).get("test_runner")
        results = [record.result for record in getattr(runner, "_results", [])]
        if results and all(result == TestResult.SUCCESS_UNDELEGATED for result in results):
            return "passed, nothing delegated"
        return "passed"
    return str(report.outcome)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Record the outcome of each test of the suite in the per-flow table."""
    report = yield
    flow = _flow_of(item)
    final = report.when == "call" or (report.when == "setup" and not report.passed)
    if flow is not None and final:
        outcome = _outcome(item, report)
        cause = "" if outcome.startswith("passed") else _cause(item, report)
        name = item.name.replace(f"[{flow.name}]", "").replace(f"[{flow.name}-", "[")
        test = f"{item.path.name}::{name}"
        _table.add(Outcome(test=test, flow=flow.name, outcome=outcome, cause=cause))
    return report


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Print the per-flow table, and write it to ``--ov-report`` if given."""
    if not _table.outcomes:
        return
    text = _table.markdown()
    terminalreporter.section("ExecuTorch backend test suite, per flow")
    terminalreporter.write_line(text)
    path: Path | None = config.getoption("ov_report")
    if path is not None:
        path.write_text(text + "\n", encoding="utf-8")
