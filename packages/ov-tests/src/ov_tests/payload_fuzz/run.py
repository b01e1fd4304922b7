"""Mutations loaded and run in child processes, and the verdict on each outcome.

A child runs a range of one program's mutations and reports each: the line
``{"started": i}`` before it, then its outcome. A child that dies (a signal) or
runs past the timeout takes only the mutation it was on with it; the next
child resumes after it. (A child per mutation would spend most of the run
importing PyTorch.)
"""

from __future__ import annotations

import collections
import concurrent.futures
import copy
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from ov_tests.payload_fuzz.mutations import CORRUPT, Mutation, apply, mutations
from ov_tests.payload_fuzz.programs import Calls, programs

# Outcomes a child reports; a signal or a hang is the parent's verdict.
EQUAL, CLOSE, REFUSED, DIFFERENT = "equal", "close", "refused", "different"
# A property a crafted program sets may change how OpenVINO computes, not what.
TOLERANCE = 1e-4


def payload_of(pte: bytes) -> tuple[Any, bytes]:
    """ExecuTorch's reading of the program, and the processed bytes of its one delegate."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    pte_file = deserialize_pte_binary(pte)
    delegates = pte_file.program.backend_delegate_data
    assert len(delegates) == 1, f"a fuzzed program has {len(delegates)} delegates; expected 1"
    return pte_file, bytes(delegates[0].data)


def with_payload(pte_file: Any, payload: bytes) -> bytes:
    """The program serialized again by ExecuTorch with ``payload`` as its delegate's bytes.

    A mutation may change the payload's size, which moves every later segment.
    """
    from executorch.exir._serialize._program import serialize_pte_binary

    changed = copy.deepcopy(pte_file)
    changed.program.backend_delegate_data[0].data = payload
    return bytes(serialize_pte_binary(changed, extract_delegate_segments=True))


def _through_facade(pte: bytes, calls: Calls) -> list[list[Any]]:
    from ov_runtime import load_program

    method = load_program(pte).load_method("forward")
    return [list(method.execute(inputs)) for inputs in calls]


def _through_executorch(pte: bytes, calls: Calls) -> list[list[Any]]:
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte)
    method = program.load_method("forward")
    return [list(method.execute(list(inputs))) for inputs in calls]


def _compare(got: list[list[Any]], want: list[list[Any]]) -> str:
    outcome = EQUAL
    for got_call, want_call in zip(got, want, strict=True):
        if len(got_call) != len(want_call):
            return DIFFERENT
        for value, expected in zip(got_call, want_call, strict=True):
            if not isinstance(value, torch.Tensor) or value.dtype != expected.dtype:
                return DIFFERENT
            if value.shape != expected.shape:
                return DIFFERENT
            if torch.equal(value, expected):
                continue
            if not torch.allclose(value, expected, rtol=TOLERANCE, atol=TOLERANCE):
                return DIFFERENT
            outcome = CLOSE
    return outcome


def _outcome(
    run: Callable[[bytes, Calls], list[list[Any]]],
    pte: bytes,
    calls: Calls,
    expected: list[list[Any]],
) -> str:
    from ov_runtime import ExecutionError

    try:
        return _compare(run(pte, calls), expected)
    except (ExecutionError, RuntimeError):
        return REFUSED  # ExecuTorch's bindings raise RuntimeError on a failed load or run
    except Exception as error:  # any other exception is reported as a failure
        return f"error {type(error).__name__}: {str(error)[:200]}"


def _emit(record: dict[str, object]) -> None:
    """One line to the parent, sent at once: the child may die on the next mutation."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def child(folder: Path, program: str, first: int, last: int, seed: int) -> None:
    """Run ``program``'s mutations ``first`` to ``last`` - 1, reporting each."""
    pte = (folder / f"{program}.pte").read_bytes()
    pte_file, payload = payload_of(pte)
    calls = programs()[program].calls
    expected = _through_facade(pte, calls)
    for mutation in mutations(payload, program, last, seed):
        if mutation.index < first:
            continue
        _emit({"started": mutation.index})
        mutated = with_payload(pte_file, apply(payload, mutation))
        record: dict[str, object] = {
            "index": mutation.index,
            "outcome": _outcome(_through_facade, mutated, calls, expected),
        }
        if mutation.through_executorch:
            record["executorch"] = _outcome(_through_executorch, mutated, calls, expected)
        _emit(record)


def failure(mutation: Mutation, outcome: str) -> str | None:
    """Why an outcome fails the fuzz; None when it is allowed.

    A corrupt mutation must be refused or give the same outputs; a crafted one
    that keeps the model must be refused or give outputs within
    ``TOLERANCE``; any crafted one may be refused or run. No mutation may end
    in another exception, a signal or a hang.
    """
    if outcome in (EQUAL, REFUSED) or (outcome == CLOSE and mutation.kind != CORRUPT):
        return None
    if outcome == DIFFERENT and not mutation.same_model and mutation.kind != CORRUPT:
        return None
    if outcome in (CLOSE, DIFFERENT):
        return "ran with other outputs (silent wrong)"
    return outcome


@dataclass
class Report:
    """What the mutations came to: outcome counts per family and kind, and each failure."""

    counts: dict[str, collections.Counter[str]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    failures: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        """Mutations run (each counted once, whatever runtimes it went through)."""
        return sum(sum(counts.values()) for key, counts in self.counts.items() if "[" not in key)


def _record(report: Report, mutation: Mutation, outcome: str, runtime: str = "") -> None:
    key = f"{mutation.kind} {mutation.family}" + (f" [{runtime}]" if runtime else "")
    report.counts[key][outcome.split(":")[0]] += 1
    if (reason := failure(mutation, outcome)) is not None:
        where = f" through {runtime}" if runtime else ""
        report.failures.append(
            f"{mutation.program} #{mutation.index} {mutation.what} ({mutation.kind}){where}: {reason}"
        )


def _run_unit(
    folder: Path,
    program: str,
    first: int,
    last: int,
    seed: int,
    timeout: float,
    described: dict[int, Mutation],
) -> Report:
    """Run mutations ``first`` to ``last`` - 1 of ``program`` in as many children as it takes."""
    report = Report()
    environment = {**os.environ, "OV_EXECUTORCH_CACHE_DIR": "none"}
    while first < last:
        command = [sys.executable, "-m", "ov_tests.payload_fuzz", "--child", str(folder)]
        command += ["--program", program, "--first", str(first), "--last", str(last)]
        command += ["--seed", str(seed)]
        try:
            result = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
                env=environment,
            )
            lines, returncode = result.stdout.splitlines(), result.returncode
        except subprocess.TimeoutExpired as expired:
            stdout = expired.stdout or b""
            lines = (stdout.decode() if isinstance(stdout, bytes) else stdout).splitlines()
            returncode = None
        next_index = first
        for line in lines:
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if "started" in record:
                next_index = record["started"]
                continue
            mutation = described[record["index"]]
            _record(report, mutation, record["outcome"])
            if "executorch" in record:
                _record(report, mutation, record["executorch"], "executorch.runtime")
            next_index = record["index"] + 1
        if next_index >= last and returncode == 0:
            break
        verdict = (
            "killed after the timeout (hung)"
            if returncode is None
            else (f"exit status {returncode}")
        )
        _record(report, described[next_index], verdict)
        first = next_index + 1
    return report


def fuzz(
    count: int,
    seed: int = 0,
    *,
    jobs: int = 1,
    batch: int = 250,
    timeout: float = 600.0,
    names: Sequence[str] | None = None,
) -> Report:
    """Lower the fuzzed programs and run ``count`` mutations, shared among them, in children.

    Args:
        count: Mutations in all; each program gets an equal share.
        seed: Seeds every program's sequence of mutations.
        jobs: Children run at once.
        batch: Mutations a child runs before the next one takes over.
        timeout: Seconds a child may take for its batch.
        names: The programs to mutate (default: all four of ``programs()``).
    """
    chosen = {name: program for name, program in programs().items() if not names or name in names}
    report = Report()
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        units = []
        for index, (name, program) in enumerate(chosen.items()):
            share = count // len(chosen) + (index < count % len(chosen))
            pte = program.lower()
            (folder / f"{name}.pte").write_bytes(pte)
            described = {m.index: m for m in mutations(payload_of(pte)[1], name, share, seed)}
            units += [
                (name, first, min(share, first + batch), described)
                for first in range(0, share, batch)
            ]
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [
                pool.submit(_run_unit, folder, name, first, last, seed, timeout, described)
                for name, first, last, described in units
            ]
            for future in futures:
                part = future.result()
                for key, counts in part.counts.items():
                    report.counts[key].update(counts)
                report.failures += part.failures
    return report
