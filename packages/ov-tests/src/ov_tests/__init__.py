"""Test helpers, model suite and benchmarks of the OpenVINO backend for ExecuTorch."""

from ov_tests.pipeline import Outcome, assert_same, check_program, cpu_operators, delegate_ids

__all__ = ["Outcome", "assert_same", "check_program", "cpu_operators", "delegate_ids"]
