"""Benchmarks: scripts that report medians and ratios measured side by side in one run.

Run with ``uv run python -m ov_tests.benchmarks.<name>``.
"""
