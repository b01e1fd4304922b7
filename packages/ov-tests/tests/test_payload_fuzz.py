import pytest
import torch

from ov_tests.payload_fuzz import CORRUPT, CRAFTED, REFUSED, Mutation, apply, fuzz, mutations


def test_mutations_are_seeded_and_of_both_kinds():
    payload = bytes(range(256)) * 8
    payload = payload[:16] + (96).to_bytes(8, "little") * 8 + payload[80:]
    first = list(mutations(payload, 40, seed=3))
    assert first == list(mutations(payload, 40, seed=3))
    assert {m.kind for m in first} == {CORRUPT, CRAFTED}


def test_a_crafted_mutation_carries_a_matching_checksum():
    from ov_convert import MAGIC, Payload
    from ov_runtime import lower

    program = lower(torch.nn.Linear(4, 2), (torch.ones(1, 4),)).buffer
    start = program.index(MAGIC)
    xml_offset = int.from_bytes(program[start + 48 : start + 56], "little")
    change = ((xml_offset + 1, b"X"),)
    crafted = apply(program, Mutation(0, CRAFTED, "xml byte", change))
    corrupt = apply(program, Mutation(0, CORRUPT, "xml byte", change))
    with pytest.raises(ValueError, match="checksum"):
        Payload.from_bytes(corrupt[start:])
    assert Payload.from_bytes(crafted[start:]).xml[1:2] == b"X"


def _check_fuzz(count: int, seed: int) -> None:
    report = fuzz(count, seed=seed)
    assert not report.failures, "\n".join(report.failures)
    assert sum(sum(counts.values()) for counts in report.counts.values()) == count
    assert report.counts[CORRUPT][REFUSED] and report.counts[CRAFTED][REFUSED]


def test_300_mutated_payloads_end_in_a_clean_error_or_the_same_outputs():
    _check_fuzz(300, seed=0)


@pytest.mark.slow
def test_700_more_mutated_payloads_end_in_a_clean_error_or_the_same_outputs():
    _check_fuzz(700, seed=1)  # with the quick tier's 300, the full tier runs 1,000
