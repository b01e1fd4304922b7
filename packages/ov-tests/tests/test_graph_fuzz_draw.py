"""The fuzzer's draws: the same graphs for a seed in any process."""

import random
import subprocess
import sys

import torch

from ov_tests.graph_fuzz.draw import _Drawer

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


def test_an_index_argument_is_drawn_from_int64_tensors_only():
    # Graph 1,028 of seed 0: eager took an empty float16 index to scatter, which ExecuTorch's
    # kernel refuses; PyTorch documents an index as int64.
    # Graph 2,845: the same with an empty int32 index.
    others = {
        "x0": torch.zeros(3, 2),
        "x1": torch.zeros(3, 2, 0, dtype=torch.float16),
        "x3": torch.zeros(0, 3, dtype=torch.int32),
    }
    assert _Drawer(random.Random(0), others).call(torch.ops.aten.gather.default) is None
    indices = {**others, "x2": torch.zeros(3, 2, dtype=torch.int64)}
    for seed in range(20):
        drawn = _Drawer(random.Random(seed), indices).call(torch.ops.aten.gather.default)
        assert drawn is not None and drawn[1][2] is indices["x2"]


def test_topk_is_drawn_sorted():
    # Graph 356 of seed 1: topk's values with sorted=False come in an order PyTorch leaves
    # unspecified, which OpenVINO and eager order otherwise.
    rng = random.Random(0)
    drawn = [
        _Drawer(rng, {"x0": torch.zeros(3, 4)}).call(torch.ops.aten.topk.default)
        for _ in range(200)
    ]
    with_sorted = [values for _, values in filter(None, drawn) if len(values) == 5]
    assert with_sorted
    assert all(values[4] is True for values in with_sorted)
