import subprocess
import sys
from pathlib import Path

import pytest
import torch
from executorch.backends.test.harness.stages import StageType

from ov_tests.conformance.flows import EXPECTED_FAILURES, OV_EXECUTORCH_FLOW, select_flows
from ov_tests.conformance.report import FlowTable, Outcome
from ov_tests.conformance.tester import OvExecutorchTester

CONFORMANCE_PAGE = Path(__file__).parents[3] / "docs" / "conformance.md"
SUITE = "executorch.backends.test.suite.operators"


def test_the_table_counts_each_flow_and_lists_causes():
    table = FlowTable()
    table.add(Outcome("a.py::test_x", "ov_executorch", "passed"))
    table.add(Outcome("a.py::test_y", "ov_executorch", "failed", "Output Mismatch; max 2"))
    table.add(Outcome("a.py::test_z", "ov_executorch", "skipped", "NaN not enforced"))
    table.add(Outcome("a.py::test_x", "xnnpack", "passed, nothing delegated"))
    text = table.markdown()
    assert "| ov_executorch | 3 | 1 | 0 | 1 | 0 | 0 | 1 | 50.0% |" in text
    assert "| xnnpack | 1 | 0 | 1 | 0 | 0 | 0 | 0 | 100.0% |" in text
    assert "- `a.py::test_y`: Output Mismatch; max 2" in text
    assert "- `a.py::test_z`: NaN not enforced" in text


def test_unknown_flows_are_named_with_the_valid_ones():
    assert select_flows(["ov_executorch"]) == {"ov_executorch": OV_EXECUTORCH_FLOW}
    with pytest.raises(ValueError, match=r"unknown test flow\(s\) \['vulkan'\].*xnnpack"):
        select_flows(["vulkan"])


def test_the_tester_lowers_to_this_backend_and_runs_the_pte():
    tester = OvExecutorchTester(torch.nn.Linear(4, 3), (torch.randn(2, 4),))
    tester.export().to_edge_transform_and_lower().check_count(
        {"torch.ops.higher_order.executorch_call_delegate": 1}
    ).to_executorch().serialize().run_method_and_compare_outputs(atol=1e-6, rtol=0)


def test_the_int8_flow_quantizes_the_model_before_lowering():
    flow = select_flows(["ov_executorch_int8"])["ov_executorch_int8"]
    assert flow.quantize and flow.quantize_stage_factory is not None
    x = torch.randn(4, 16)
    tester = flow.tester_factory(torch.nn.Linear(16, 8), (x,))
    tester.quantize(flow.quantize_stage_factory())
    quantized = tester.get_artifact(StageType.QUANTIZE)
    assert any("dequantize" in str(node.target) for node in quantized.graph.nodes)
    tester.export().to_edge_transform_and_lower().check_count(
        {"torch.ops.higher_order.executorch_call_delegate": 1}
    ).to_executorch().serialize().run_method_and_compare_outputs(atol=0.05, rtol=0)


class ScaledByAConstant(torch.nn.Module):
    """A lifted tensor constant, as torchvision's Swin V2 attention has one."""

    def forward(self, x):
        return x * torch.tensor([1.0, 2.0, 3.0]) + 1


def test_the_reference_still_runs_after_a_delegate_took_a_constant():
    tester = OvExecutorchTester(ScaledByAConstant(), (torch.randn(2, 3),))
    tester.export().to_edge_transform_and_lower()
    exported = tester.get_artifact(StageType.EXPORT)
    assert list(exported.constants) == ["lifted_tensor_0"]
    tester.to_executorch().serialize().run_method_and_compare_outputs(atol=1e-6, rtol=0)


def test_every_expected_failure_is_in_the_conformance_page():
    text = CONFORMANCE_PAGE.read_text(encoding="utf-8")
    start = text.index("<!-- conformance-xfails -->")
    rows = text[start : text.index("<!-- /conformance-xfails -->")]
    listed = {line.split("`")[1] for line in rows.splitlines() if line.startswith("| `")}
    assert listed == set(EXPECTED_FAILURES)


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_the_plugin_runs_the_suite_in_place_with_a_table_and_fails_on_an_unexpected_pass(tmp_path):
    # One child process (each imports ExecuTorch's compiler): a test of the
    # suite that passes, and one marked as an expected failure that passes.
    report = tmp_path / "table.md"
    script = (
        "import sys, pytest\n"
        "from ov_tests.conformance import flows\n"
        "flows.EXPECTED_FAILURES['test_abs_shapes'] = 'a reason'\n"
        "sys.exit(pytest.main(['-p', 'ov_tests.conformance.plugin', '-p', 'no:cacheprovider',\n"
        f"    '--ov-report', {str(report)!r}, '--pyargs', '{SUITE}.test_transpose',\n"
        f"    '{SUITE}.test_abs', '-k', 'test_transpose_basic or test_abs_shapes']))\n"
    )
    done = _run(tmp_path, "-c", script)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "[XPASS(strict)] a reason" in done.stdout
    table = report.read_text(encoding="utf-8")
    assert "| ov_executorch | 2 | 1 | 0 | 0 | 0 | 1 | 0 | 50.0% |" in table, table
    assert "- `test_abs.py::test_abs_shapes`: passed, though expected to fail: a reason" in table


def test_the_command_refuses_unknown_suites(capsys):
    from ov_tests.conformance.__main__ import main

    with pytest.raises(SystemExit) as stop:
        main(["kernels"])
    assert stop.value.code == 2
    assert "unknown suite(s) ['kernels']; the suites are ['models', 'operators']" in (
        capsys.readouterr().err
    )


def test_the_command_refuses_unknown_flows(tmp_path):
    bad_flow = _run(tmp_path, "-m", "ov_tests.conformance", "operators", "--flows", "vulkan")
    assert bad_flow.returncode == 4
    assert "unknown test flow(s) ['vulkan']" in bad_flow.stderr
