"""float32 versus bf16 (and f16) inference on this machine's CPU, for a 4-layer MLP.

Prints the median latency of each precision and its ratio to float32, and the
precision each compiled delegate reports. On CPUs without bf16 units OpenVINO
computes every precision in f32, so the ratios stay near 1.
"""

from __future__ import annotations

import argparse
import functools

import torch

from ov_runtime import compile_specs, compiled_delegates, load_program, lower
from ov_tests.benchmarks._timing import median_seconds, report


def _mlp(width: int) -> torch.nn.Module:
    layers: list[torch.nn.Module] = []
    for _ in range(4):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).eval()


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = _mlp(args.width)
    x = torch.randn(args.batch, args.width)
    results: dict[str, float] = {}
    applied: dict[str, str] = {}
    for precision in ("f32", "bf16", "f16"):
        program = load_program(
            lower(model, (x,), compile_specs(inference_precision=precision)).buffer
        )
        method = program.load_method("forward")
        assert method is not None
        applied[precision] = compiled_delegates()[-1].get("INFERENCE_PRECISION_HINT", "?")
        results[precision] = median_seconds(
            functools.partial(method.execute, [x]), args.repeats, warmup=5
        )

    report(f"4-layer MLP, width {args.width}, batch {args.batch}, median of {args.repeats} calls")
    report(f"{'asked':>6} {'applied':>8} {'median ms':>10} {'vs f32':>7}")
    for precision, seconds in results.items():
        ratio = seconds / results["f32"]
        report(f"{precision:>6} {applied[precision]:>8} {seconds * 1e3:10.3f} {ratio:7.2f}")


if __name__ == "__main__":
    main()
