"""Pytest plugin: the quick and the full tier of the workspace's tests.

Loaded from the root ``pyproject.toml`` (``-p ov_tests.tiers``):

* ``pytest`` runs the quick tier: every test not marked ``slow``. Tests marked
  ``slow`` are deselected (reported as deselected, never as passed or
  skipped), and ExecuTorch's operator suite, which ``testpaths`` names, is not
  collected, so its harness is not even imported.
* ``pytest --full`` runs everything: the ``slow`` tests and the operator suite.

A test lands in the quick tier unless it carries the ``slow`` marker. The
summary lists every quick-tier test that took longer than the ini option
``slow_test_seconds`` (:data:`SLOW_SECONDS` by default; setup, call and
teardown together), so that a slow one is seen and marked; the list is a report, never a failure, since a loaded
machine must not fail a run.
"""

from __future__ import annotations

import pytest

OPERATOR_SUITE = "executorch.backends.test.suite"
"""The package of ExecuTorch's backend test suite (in the executorch wheel)."""

_SUITE_FOLDER = OPERATOR_SUITE.replace(".", "/") + "/"

SLOW_SECONDS = 30.0
"""A quick-tier test slower than this many seconds is listed at the end of the run."""

_durations: dict[str, float] = {}


def names_operator_suite(args: list[str]) -> bool:
    """Whether any of pytest's positional arguments names ExecuTorch's backend test suite."""
    return any(arg.startswith(OPERATOR_SUITE) for arg in args)


def runs_operator_suite(args: list[str], *, full: bool) -> bool:
    """Whether a run collects ExecuTorch's backend test suite.

    Args:
        args: pytest's positional arguments as given (empty: ``testpaths``).
        full: Whether ``--full`` was given.

    Returns:
        True when an argument names the suite, or when none is given and the
        run is the full tier (``testpaths`` names the suite).
    """
    return names_operator_suite(args) if args else full


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--full``."""
    parser.addoption(
        "--full",
        action="store_true",
        help="run the full tier: the tests marked slow (whole models, LLMs, C++ builds, "
        "the long fuzz) and ExecuTorch's operator suite",
    )
    parser.addini(
        "slow_test_seconds",
        help=f"list quick-tier tests slower than this many seconds (default {SLOW_SECONDS:g})",
        default=str(SLOW_SECONDS),
    )


def pytest_configure(config: pytest.Config) -> None:
    """Leave ExecuTorch's operator suite out of the quick tier's ``testpaths``."""
    if config.getoption("full") or config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return
    config.args = [arg for arg in config.args if not names_operator_suite([arg])]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the tests marked ``slow`` unless the run is the full tier."""
    if config.getoption("full"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each quick-tier test's setup, call and teardown time.

    ExecuTorch's suite, which only a full or an explicit run collects, is no
    part of the quick tier.
    """
    if "slow" not in report.keywords and _SUITE_FOLDER not in report.nodeid:
        _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """List the quick-tier tests slower than ``slow_test_seconds``."""
    limit = float(config.getini("slow_test_seconds"))
    slow = sorted(
        ((seconds, nodeid) for nodeid, seconds in _durations.items() if seconds > limit),
        reverse=True,
    )
    if not slow:
        return
    terminalreporter.section(f"quick-tier tests over {limit:g} s (mark them slow?)")
    for seconds, nodeid in slow:
        terminalreporter.write_line(f"{seconds:7.1f} s  {nodeid}")
