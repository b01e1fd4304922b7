"""The fuzzer's draws: the same graphs for a seed in any process."""

import subprocess
import sys

_OPS_OF_A_FRESH_PROCESS = """
from ov_tests.graph_fuzz.draw import fuzzed_ops
from ov_spec import target_name
print(" ".join(target_name(op) for op in fuzzed_ops()))
"""


def test_a_fresh_process_draws_from_the_ops_preprocess_makes_convertible():
    # Before, a process that drew before lowering anything drew without them (expm1, the
    # logical ops, scatter_reduce), so the fuzzer's workers and the test suite drew other graphs.
    done = subprocess.run(
        [sys.executable, "-c", _OPS_OF_A_FRESH_PROCESS], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ops = done.stdout.split()
    for name in ("aten.expm1.default", "aten.logical_and.default", "aten.scatter_reduce.two"):
        assert name in ops
    assert "aten.add.Tensor" in ops
