import os
import subprocess
import sys
from pathlib import Path

import pytest

from ov_tests.tiers import runs_operator_suite

TESTS = """
import os
import time
import pytest

def test_quick():
    pass

def test_quick_but_long():
    time.sleep(float(os.environ["LONG_SECONDS"]))

@pytest.mark.slow
def test_slow():
    pass
"""


def _pytest(tmp_path: Path, *args: str, long_seconds: float = 0.0) -> str:
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: full tier\n")
    (tmp_path / "test_sample.py").write_text(TESTS)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "ov_tests.tiers", "-p", "no:cacheprovider", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "LONG_SECONDS": str(long_seconds)},
    )
    assert done.returncode == 0, done.stdout[-3000:]
    return done.stdout


def test_the_quick_tier_deselects_slow_tests_and_the_full_tier_runs_them(tmp_path):
    quick = _pytest(tmp_path, "-v")
    assert "test_sample.py::test_quick PASSED" in quick
    assert "test_slow" not in quick.split("short test summary")[0].replace("deselected", "")
    assert "2 passed, 1 deselected" in quick
    full = _pytest(tmp_path, "-v", "--full")
    assert "test_sample.py::test_slow PASSED" in full
    assert "3 passed" in full and "deselected" not in full


def test_the_summary_lists_quick_tier_tests_over_the_limit(tmp_path):
    assert "quick-tier tests over" not in _pytest(tmp_path)  # 30 s by default
    report = _pytest(tmp_path, "--full", "-o", "slow_test_seconds=0.5", long_seconds=1.0)
    section = report.split("quick-tier tests over 0.5 s (mark them slow?)")[1]
    assert "test_sample.py::test_quick_but_long" in section
    assert "test_sample.py::test_quick\n" not in section
    assert "test_slow" not in section  # a slow test is in the full tier only


@pytest.mark.parametrize(
    ("args", "full", "expected"),
    [
        ([], False, False),
        ([], True, True),
        (["packages/ov-spec"], True, False),
        (["executorch.backends.test.suite.operators.test_abs"], False, True),
    ],
)
def test_the_operator_suite_runs_in_the_full_tier_or_when_named(args, full, expected):
    assert runs_operator_suite(args, full=full) is expected
