"""Seeded mutations of a delegate payload, each loaded and run in a child process.

Two kinds of mutation, both drawn from one seeded generator:

* corrupt: bytes changed as storage or transfer would change them (a cut, a
  header field, an XML byte, including non-ASCII ones, a weight byte). Each
  must end in a clean ``ExecutionError`` or in outputs equal to the unmutated
  program's: never a signal, never a different answer.
* crafted: the same changes with the payload's checksum made to match, as a
  hostile program would be. Each must end without a signal; its outputs may
  differ (it is a different model).

Children run mutations in batches and report each outcome; a child that dies
takes only the mutation it was on with it, and the next child resumes after it.
(A child per mutation would spend most of the run importing PyTorch.)

Run ``python -m ov_tests.payload_fuzz --mutations 20000`` for a longer run;
the quick test tier runs 300 and the full tier 1,000.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import torch

from ov_convert import MAGIC
from ov_convert.payload import HEADER_SIZE, payload_end, reseal

CORRUPT = "corrupt"
CRAFTED = "crafted"
# Outcomes a child reports; a signal or a hang is the parent's verdict.
EQUAL, REFUSED, DIFFERENT = "equal", "refused", "different"


class _Model(torch.nn.Module):
    """A small model with weights, a reduction and a comparison: every section matters."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.linear(x))
        return y, (y.sum(dim=1) > 0.5)


INPUTS = (torch.linspace(-1, 1, 24).reshape(3, 8),)


@dataclass(frozen=True)
class Mutation:
    """One change to the program: bytes written at payload offsets, or a cut.

    Attributes:
        index: Its place in the seeded sequence.
        kind: ``corrupt`` or ``crafted`` (checksum made to match).
        what: A few words on what was changed, for reports.
        writes: (payload offset, bytes) pairs.
        keep: When set, the payload is cut to this many bytes (the rest zeroed,
            so the program keeps its size).
    """

    index: int
    kind: str
    what: str
    writes: tuple[tuple[int, bytes], ...] = ()
    keep: int | None = None


def _sections(payload: bytes) -> dict[str, tuple[int, int]]:
    fields = struct.unpack_from("<8Q", payload, 16)
    names = ("options", "signature", "xml", "weights")
    return {name: (fields[2 * i], fields[2 * i + 1]) for i, name in enumerate(names)}


def mutations(payload: bytes, count: int, seed: int = 0) -> Iterator[Mutation]:
    """``count`` seeded mutations of ``payload`` (the unmutated delegate bytes)."""
    generator = random.Random(seed)
    sections = _sections(payload)
    for index in range(count):
        kind = CRAFTED if index % 4 == 3 else CORRUPT
        choice = generator.randrange(5)
        if choice == 0:
            keep = generator.randrange(len(payload))
            yield Mutation(index, kind, f"cut to {keep} bytes", keep=keep)
        elif choice == 1:
            offset = generator.randrange(8, HEADER_SIZE)
            size = generator.choice((1, 4, 8))
            value = generator.choice(
                (bytes(size), b"\xff" * size, generator.randbytes(size), b"\x80" * size)
            )
            yield Mutation(index, kind, f"header bytes at {offset}", ((offset, value),))
        else:
            name = ("xml", "xml", "weights")[choice - 2]
            start, size = sections[name]
            offset = start + generator.randrange(size)
            value = bytes([generator.choice((0x00, 0x22, 0x3C, 0x80, 0xEA, 0xFF, 0xC3, 0x41))])
            if name == "weights" or generator.random() < 0.3:
                value = bytes([payload[offset] ^ (1 << generator.randrange(8))])
            yield Mutation(index, kind, f"{name} byte at {offset}", ((offset, value),))


def payload_of(program: bytes) -> tuple[int, bytes]:
    """Where the program's (only) payload starts, and its bytes."""
    start = program.index(MAGIC)
    return start, program[start : payload_end(program, start)]


def apply(program: bytes, mutation: Mutation) -> bytes:
    """The program with ``mutation`` applied to its (only) payload."""
    start, original = payload_of(program)
    end = start + len(original)
    payload = bytearray(original)
    for offset, value in mutation.writes:
        payload[offset : offset + len(value)] = value
    if mutation.keep is not None:
        payload[mutation.keep :] = bytes(len(payload) - mutation.keep)
    if mutation.kind == CRAFTED and len(payload) > HEADER_SIZE:
        reseal(payload)
    return program[:start] + bytes(payload) + program[end:]


def _same(outputs: list[object], expected: list[object]) -> bool:
    return len(outputs) == len(expected) and all(
        isinstance(got, torch.Tensor) and got.dtype == want.dtype and torch.equal(got, want)
        for got, want in zip(outputs, expected, strict=True)
        if isinstance(want, torch.Tensor)
    )


def _emit(record: dict[str, object]) -> None:
    """One line to the parent, sent at once: the child may die on the next mutation."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _child(program_path: Path, first: int, last: int, seed: int) -> None:
    """Run mutations ``first`` to ``last`` - 1, two JSON lines each: started, then its outcome."""
    from ov_runtime import ExecutionError, run

    program = program_path.read_bytes()
    expected = run(program, INPUTS)
    for mutation in mutations(payload_of(program)[1], last, seed):
        if mutation.index < first:
            continue
        _emit({"started": mutation.index})
        try:
            same = _same(run(apply(program, mutation), INPUTS), expected)
            outcome = EQUAL if same else DIFFERENT
        except ExecutionError:
            outcome = REFUSED
        _emit({"index": mutation.index, "outcome": outcome})


@dataclass
class Report:
    """What the mutations came to: outcome counts per kind, and each failure."""

    counts: dict[str, collections.Counter[str]]
    failures: list[str]


def fuzz(count: int, seed: int = 0, batch: int = 1000, timeout: float = 600.0) -> Report:
    """Lower the small model, run ``count`` mutations in child processes, and report.

    Each child runs up to ``batch`` mutations within ``timeout`` seconds. A
    failure is a child killed by a signal or by the timeout (charged to the
    mutation it was on), or a corrupt mutation that ran and gave other outputs.
    """
    from ov_runtime import lower

    program = lower(_Model(), INPUTS).buffer
    found = program.count(MAGIC)
    assert found == 1, f"the fuzzed program has {found} payloads; expected 1"
    described = {m.index: m for m in mutations(payload_of(program)[1], count, seed)}
    report = Report({CORRUPT: collections.Counter(), CRAFTED: collections.Counter()}, [])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzzed.pte"
        path.write_bytes(program)
        first = 0
        while first < count:
            last = min(count, first + batch)
            first = _run_child(path, first, last, seed, timeout, described, report)
    return report


def _run_child(
    path: Path,
    first: int,
    last: int,
    seed: int,
    timeout: float,
    described: dict[int, Mutation],
    report: Report,
) -> int:
    """Run one child on mutations ``first`` to ``last`` - 1; return where the next one starts."""
    command = [sys.executable, "-m", "ov_tests.payload_fuzz", "--child", str(path)]
    command += ["--first", str(first), "--mutations", str(last), "--seed", str(seed)]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=False
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
        report.counts[mutation.kind][record["outcome"]] += 1
        if mutation.kind == CORRUPT and record["outcome"] == DIFFERENT:
            report.failures.append(f"{mutation.what} ({mutation.kind}): ran with other outputs")
        next_index = record["index"] + 1
    if next_index >= last and returncode == 0:
        return last
    mutation = described[next_index]
    verdict = "killed after the timeout" if returncode is None else f"exit status {returncode}"
    report.counts[mutation.kind][verdict] += 1
    report.failures.append(f"{mutation.what} ({mutation.kind}): {verdict}")
    return next_index + 1


def main() -> None:
    """Fuzz and print the outcome counts; exit non-zero on any failure."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mutations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        _child(args.child, args.first, args.mutations, args.seed)
        return
    report = fuzz(args.mutations, args.seed)
    for kind, counts in report.counts.items():
        sys.stdout.write(f"{kind}: {dict(counts)}\n")
    for failure in report.failures:
        sys.stdout.write(f"FAILED {failure}\n")
    sys.exit(1 if report.failures else 0)


if __name__ == "__main__":
    main()
