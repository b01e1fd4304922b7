"""Seeded mutations of delegate payloads, each loaded and run in a child process.

Four programs (static shapes, a dynamic batch, outputs passed through, and a
compiled blob) are lowered once; each mutation changes one program's payload
(:mod:`ov_tests.payload_fuzz.mutations`), ExecuTorch serializes the program
again, and a child process loads and runs it through ``ov_runtime`` and, for
one mutation in four, through ``executorch.runtime`` as well
(:mod:`ov_tests.payload_fuzz.run`). No mutation may end in a signal, a hang or
an unexpected exception; a corrupt one must be refused or give the same
outputs, and a crafted one that keeps the model must be refused or give the
same outputs (to within a property's effect).

Run ``python -m ov_tests.payload_fuzz --mutations 10000 --jobs 2`` for a long
run; the quick test tier runs 100 mutations and the full tier 3,200 more.
"""

from ov_tests.payload_fuzz.mutations import CORRUPT, CRAFTED, Mutation, apply, mutations, relaid
from ov_tests.payload_fuzz.programs import FuzzProgram, programs
from ov_tests.payload_fuzz.run import (
    CLOSE,
    DIFFERENT,
    EQUAL,
    REFUSED,
    Report,
    failure,
    fuzz,
    payload_of,
    with_payload,
)

__all__ = [
    "CLOSE",
    "CORRUPT",
    "CRAFTED",
    "DIFFERENT",
    "EQUAL",
    "REFUSED",
    "FuzzProgram",
    "Mutation",
    "Report",
    "apply",
    "failure",
    "fuzz",
    "mutations",
    "payload_of",
    "programs",
    "relaid",
    "with_payload",
]
