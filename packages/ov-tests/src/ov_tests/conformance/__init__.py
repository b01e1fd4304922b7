"""ExecuTorch's own backend test suite, run in place for this backend.

- :mod:`ov_tests.conformance.tester`: this backend's harness ``Tester``.
- :mod:`ov_tests.conformance.flows`: its ``TestFlow`` and its known failures.
- :mod:`ov_tests.conformance.plugin`: the pytest plugin that runs the suite
  from the installed ``executorch`` wheel for the selected flows.
- :mod:`ov_tests.conformance.report`: the per-flow table.
- ``python -m ov_tests.conformance``: the command that runs it all.
"""
