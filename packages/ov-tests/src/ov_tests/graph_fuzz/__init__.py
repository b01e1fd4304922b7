"""A differential graph fuzzer: random graphs lowered by this backend, compared with eager.

``run(graphs, seed)`` draws seeded graphs of 1 to 12 ops the partitioner claims
(:mod:`ov_tests.graph_fuzz.draw`), lowers each through ExecuTorch's own API,
runs it twice and compares with eager (:mod:`ov_tests.graph_fuzz.check`). A
mismatch is shrunk to fewer ops while it still fails and written as a pytest
case. ``run_isolated`` checks graphs in child processes, so a native crash is
reported with its graph. ``python -m ov_tests.graph_fuzz --graphs 5000`` is the long run.
"""

from ov_tests.graph_fuzz.check import Outcome, check_graph
from ov_tests.graph_fuzz.compare import differences
from ov_tests.graph_fuzz.draw import DTYPES, Graph, draw_graph, fuzzed_ops
from ov_tests.graph_fuzz.isolation import run_isolated
from ov_tests.graph_fuzz.run import Failure, Report, check_index, run, shrink

__all__ = [
    "DTYPES",
    "Failure",
    "Graph",
    "Outcome",
    "Report",
    "check_graph",
    "check_index",
    "differences",
    "draw_graph",
    "fuzzed_ops",
    "run",
    "run_isolated",
    "shrink",
]
