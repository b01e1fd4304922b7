"""The C++ runner (``ov-executorch-run``) beside the Python path, on MiniLM.

Lowers all-MiniLM-L6-v2 once with a model cache folder, then takes turns:
one round runs the program ``--calls`` times in a fresh runner process, the
next ``--calls`` times through ``ov_runtime`` in this process. Reports the
median per-call time of each (the first call of a runner process left out, as
the Python side's warm-up call is), their ratio, the runner's load time
(program and method, delegates compiled from the warm cache) and the wall time
of a whole runner process of one call.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from ov_runtime import compile_specs, load_program, lower
from ov_runtime.native import cpp_runner
from ov_tests.benchmarks._timing import report
from ov_tests.models import SENTENCES, minilm


def _runner(pte: Path, inputs: list[Path], calls: int) -> tuple[float, list[float], float]:
    """Run the C++ runner; return its load time, its call times (ms) and the process's wall time (s)."""
    command = [str(cpp_runner()), str(pte), "--calls", str(calls), "--output-dir", str(pte.parent)]
    for path in inputs:
        command += ["--input", str(path)]
    start = time.perf_counter()
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
    wall = time.perf_counter() - start
    values = {line.split(":")[0]: float(line.split(":")[1].split()[0]) for line in lines}
    return values["load"], [values[f"call {i}"] for i in range(calls)], wall


def main() -> None:
    """Measure and print the C++ runner against the Python path."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()

    model, inputs = minilm(SENTENCES)
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        pte = folder / "minilm.pte"
        lower(model, inputs, compile_specs(cache_dir=str(folder / "cache"))).save(str(pte))
        paths = []
        for index, tensor in enumerate(inputs):
            paths.append(folder / f"input_{index}.npy")
            np.save(paths[-1], tensor.numpy())
        method = load_program(pte).load_method("forward")
        method.execute(inputs)  # warm-up, and the model cache is warm from here on
        cpp, python, loads = [], [], []
        for _ in range(args.rounds):
            load, calls, _ = _runner(pte, paths, args.calls + 1)
            loads.append(load)
            cpp += calls[1:]
            for _ in range(args.calls):
                start = time.perf_counter()
                method.execute(inputs)
                python.append((time.perf_counter() - start) * 1e3)
        wall = statistics.median(_runner(pte, paths, 1)[2] for _ in range(args.rounds))
    cpp_median, python_median = statistics.median(cpp), statistics.median(python)
    report(f"MiniLM, {args.rounds} rounds of {args.calls} calls each, taking turns")
    report(f"per call, C++ runner:      {cpp_median:8.2f} ms")
    report(f"per call, Python path:     {python_median:8.2f} ms")
    report(f"ratio C++ / Python:        {cpp_median / python_median:8.2f}")
    report(f"runner load (warm cache):  {statistics.median(loads):8.1f} ms")
    report(f"runner process, one call:  {wall * 1e3:8.1f} ms (start to exit)")


if __name__ == "__main__":
    main()
