"""The fuzzer's child processes: a graph whose worker dies or hangs is reported, and the run goes on."""

import pytest

from ov_tests.graph_fuzz import run_isolated

pytestmark = pytest.mark.slow  # two fresh processes import ExecuTorch: about 35 s


def test_a_graph_past_its_time_is_reported_as_a_crash_and_a_new_worker_takes_the_next():
    # No graph is lowered in 1 s in a fresh process (importing ExecuTorch alone takes longer),
    # so each worker is killed on its first graph and replaced.
    report = run_isolated(2, seed=7, jobs=1, timeout=1.0, shrink_failures=False)
    assert report.statuses == {"crash": 2}
    assert sorted(failure.index for failure in report.failures) == [0, 1]
    for failure in report.failures:
        assert failure.outcome.detail == "hung for over 1 s"
        assert failure.graph.lines, "the crashed graph is reported as drawn"
    assert "graph 0 [crash, unattributed]" in report.summary()
