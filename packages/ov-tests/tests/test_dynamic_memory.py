"""A large upper bound on a dynamic dimension costs the backend no memory until a call needs it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from executorch.exir import to_edge

from ov_runtime import lower

# Peak RSS growth (MiB) of loading and running a program whose dynamic output
# has an upper bound of rows of 64 float32, called with 3 and 16 rows. The
# process only runs the program, so it imports no compiler.
PROBE = """
import resource, sys, torch
from ov_runtime import load_program, run

before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
program = load_program(sys.argv[1])
for rows in (3, 16, 3):
    output = run(program, [torch.ones(rows, 64)])[0]
    assert output.shape == (rows, 64) and bool((output == 2).all())
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""


class Scale(torch.nn.Module):
    def forward(self, y):
        return y * 2


def peak_growth_mib(pte: bytes, folder: Path) -> float:
    path = folder / "program.pte"
    path.write_bytes(pte)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(path)],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return float(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_upper_bound_of_a_million_rows_adds_no_memory_beyond_executorchs_own_plan(tmp_path):
    bound = 1_000_000  # 256 MiB per planned tensor at the bound
    inputs = (torch.zeros(4, 64),)
    shapes = ({0: torch.export.Dim("n", min=1, max=bound)},)
    delegated = lower(Scale(), inputs, dynamic_shapes=shapes).buffer
    exported = torch.export.export(Scale(), inputs, dynamic_shapes=shapes)
    portable = to_edge(exported).to_executorch().buffer
    ours = peak_growth_mib(delegated, tmp_path)
    executorch_alone = peak_growth_mib(portable, tmp_path)
    # ExecuTorch plans its own input and output at the bound; the delegate's
    # output buffer, owned by OpenVINO, only grows to the 16 rows a call wrote.
    assert ours - executorch_alone < 64, (ours, executorch_alone)
