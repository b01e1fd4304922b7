"""A seeded run of the differential graph fuzzer: 300 graphs, in six parts the workers share.

Values are finite (no NaN or infinities). A failing graph must be one of
``KNOWN_FAILURES``, what this backend cannot fix yet, each with its owner (see
``ov_tests.graph_fuzz.check.Outcome``) and cause; a new one fails the test.
"""

import pytest

from ov_tests.graph_fuzz import run

SEED = 2026
PARTS = 6
GRAPHS_PER_PART = 50

SUBNORMAL = (
    "its CPU plugin reads a subnormal input as 0 in some kernels, more of them on CPUs with "
    "AVX-512 (docs/exactness.md)"
)

# On an AMD EPYC with AVX-512, AVX512-BF16 and VNNI, graphs 21 and 184 match and the other four
# count as "subnormals flushed" (equal to eager with each op's subnormal results flushed); they
# stay listed for CPUs whose kernels round or flush otherwise (graph 21 would count as "rounding
# amplified" where expm1 is a unit off).
KNOWN_FAILURES = {
    21: "openvino: expm1 of a large value rounds differently in float32, and sin of it differs",
    61: f"openvino: rsqrt of a cumsum gives inf: {SUBNORMAL}",
    124: f"openvino: pow(False, asin(x)) gives 1: {SUBNORMAL}",
    157: f"openvino: nonzero(sinh(x)) finds fewer elements: {SUBNORMAL}",
    184: f"openvino: a float copied into bools reads False: {SUBNORMAL}",
    200: f"openvino: log10(log1p(x)) gives -inf: {SUBNORMAL}",
}

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("part", range(PARTS))
def test_fuzzed_graphs_equal_eager_through_executorchs_api(part):
    start = part * GRAPHS_PER_PART
    report = run(GRAPHS_PER_PART, SEED, start=start, finite=True, shrink_failures=False)
    new = [failure for failure in report.failures if failure.index not in KNOWN_FAILURES]
    assert not new, report.summary()
    compared = ("match", "half in float32", "subnormals flushed", "rounding amplified", "mismatch")
    checked = sum(report.statuses[s] for s in compared)
    assert checked >= 0.8 * GRAPHS_PER_PART, report.summary()
    assert report.delegated >= 0.8 * GRAPHS_PER_PART, report.summary()
    assert len(report.families) >= 40, report.summary()
