import collections
import struct

import pytest

from ov_convert import Payload
from ov_convert.payload import reseal
from ov_tests.payload_fuzz import (
    CLOSE,
    CORRUPT,
    CRAFTED,
    DIFFERENT,
    EQUAL,
    REFUSED,
    Mutation,
    apply,
    failure,
    fuzz,
    mutations,
    relaid,
)

PAYLOAD = Payload(
    xml=b"<net><rt_info></rt_info></net>" + b" " * 300,
    weights=b"\x01\x02",
    device="CPU",
    properties={"INFERENCE_PRECISION_HINT": "f32"},
    inputs="T",
    outputs="TC",
).to_bytes()


def test_mutations_are_seeded_and_cover_every_family_of_both_kinds():
    drawn = list(mutations(PAYLOAD, "static", 400, seed=3))
    assert drawn == list(mutations(PAYLOAD, "static", 400, seed=3))
    assert drawn != list(mutations(PAYLOAD, "static", 400, seed=4))
    families = collections.Counter((m.family, m.kind) for m in drawn)
    assert {family for family, _ in families} == {
        "bytes", "options", "signature", "flags", "nesting"
    }  # fmt: skip
    assert families["bytes", CORRUPT] and families["bytes", CRAFTED]
    assert sum(m.through_executorch for m in drawn) == 100


def test_a_relaid_payload_reads_back_with_its_new_sections():
    data = bytearray(relaid(PAYLOAD, {"options": b"GPU.1\0NUM_STREAMS\0" + b"2" * 100 + b"\0"}))
    reseal(data, end=len(data))
    payload = Payload.from_bytes(bytes(data))
    assert (payload.device, payload.properties) == ("GPU.1", {"NUM_STREAMS": "2" * 100})
    assert (payload.xml, payload.weights, payload.outputs) == (
        b"<net><rt_info></rt_info></net>" + b" " * 300,
        b"\x01\x02",
        "TC",
    )


def test_a_crafted_mutation_carries_a_matching_checksum_and_a_corrupt_one_does_not():
    at = struct.unpack_from("<Q", PAYLOAD, 48)[0] + 40  # in the XML's padding spaces
    crafted = apply(
        PAYLOAD, Mutation(0, "static", CRAFTED, "bytes", "xml byte", writes=((at, b"X"),))
    )
    corrupt = apply(
        PAYLOAD, Mutation(0, "static", CORRUPT, "bytes", "xml byte", writes=((at, b"X"),))
    )
    with pytest.raises(ValueError, match="checksum"):
        Payload.from_bytes(corrupt)
    assert Payload.from_bytes(crafted).xml[40:41] == b"X"


@pytest.mark.parametrize(
    ("kind", "same_model", "outcome", "fails"),
    [
        (CORRUPT, False, REFUSED, False),
        (CORRUPT, False, EQUAL, False),
        (CORRUPT, False, CLOSE, True),
        (CORRUPT, False, DIFFERENT, True),
        (CRAFTED, True, CLOSE, False),
        (CRAFTED, True, DIFFERENT, True),
        (CRAFTED, False, DIFFERENT, False),
        (CRAFTED, False, "exit status -6", True),
        (CRAFTED, False, "killed after the timeout (hung)", True),
        (CRAFTED, True, "error ValueError: x", True),
    ],
)
def test_each_outcome_has_its_verdict(kind, same_model, outcome, fails):
    mutation = Mutation(0, "static", kind, "options", "device", same_model=same_model)
    assert (failure(mutation, outcome) is not None) == fails


def _check_fuzz(count: int, seed: int, jobs: int) -> None:
    report = fuzz(count, seed=seed, jobs=jobs)
    assert not report.failures, "\n".join(report.failures)
    assert report.total == count
    refused = {key.split()[0] for key, counts in report.counts.items() if counts[REFUSED]}
    assert refused == {CORRUPT, CRAFTED}
    assert any("[executorch.runtime]" in key for key in report.counts)


def test_100_mutated_payloads_are_refused_or_compute_what_they_should():
    _check_fuzz(100, seed=0, jobs=1)


@pytest.mark.slow
def test_3200_more_mutated_payloads_are_refused_or_compute_what_they_should():
    _check_fuzz(3200, seed=1, jobs=2)  # with the quick tier's 100, the full tier runs 3,300
