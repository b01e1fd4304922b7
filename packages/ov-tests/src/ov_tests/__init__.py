"""Test helpers, op and model suites and benchmarks of the OpenVINO backend for ExecuTorch."""
