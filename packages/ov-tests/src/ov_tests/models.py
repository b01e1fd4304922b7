"""The model suite: small models with seeded weights, and the real models benchmarks use.

all-MiniLM-L6-v2 is the demo's model; its loader lives with the command line
(``ov_runtime.cli.minilm``) and is only re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ov_runtime.cli.minilm import SENTENCES as SENTENCES
from ov_runtime.cli.minilm import minilm as minilm


def resnet18(batch: int = 1) -> tuple[torch.nn.Module, tuple[torch.Tensor]]:
    """The ResNet-18 of torchvision with seeded weights, in eval mode, and a seeded input.

    Returns:
        The model and one float32 input of shape ``(batch, 3, 224, 224)``.
    """
    import torchvision  # imported here: it takes a second and few tests need it

    torch.manual_seed(0)
    return torchvision.models.resnet18(weights=None).eval(), (torch.randn(batch, 3, 224, 224),)


class Add(torch.nn.Module):
    """``x + y`` (two float32 tensors of one shape)."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Return the sum."""
        return x + y


class Linear(torch.nn.Module):
    """One ``nn.Linear(16, 8)``."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return ``x @ W.T + b``, shape ``(..., 8)``."""
        output: torch.Tensor = self.linear(x)
        return output


class ConvBatchNorm(torch.nn.Module):
    """``Conv2d(3, 8, 3)`` then ``BatchNorm2d(8)`` with non-trivial running statistics."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(8)
        generator = torch.Generator().manual_seed(0)
        self.norm.register_buffer("running_mean", torch.rand(8, generator=generator) * 2 - 1)
        self.norm.register_buffer("running_var", torch.rand(8, generator=generator) * 1.5 + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the normalised convolution, shape ``(n, 8, h, w)``."""
        output: torch.Tensor = self.norm(self.conv(x))
        return output


class Softmax(torch.nn.Module):
    """Softmax over the last dimension."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return probabilities of the same shape."""
        return torch.softmax(x, dim=-1)


class Mlp(torch.nn.Module):
    """Four linear layers with GELU between them."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(32, 64),
            torch.nn.GELU(),
            torch.nn.Linear(64, 64),
            torch.nn.GELU(),
            torch.nn.Linear(64, 64),
            torch.nn.GELU(),
            torch.nn.Linear(64, 10),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return logits, shape ``(n, 10)``."""
        output: torch.Tensor = self.layers(x)
        return output


class SplitByAtan2(torch.nn.Module):
    """Linear, ``atan2`` (which OpenVINO's frontend does not convert), linear."""

    def __init__(self) -> None:
        super().__init__()
        self.first = torch.nn.Linear(8, 8)
        self.second = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return ``second(atan2(first(x), x))``."""
        output: torch.Tensor = self.second(torch.atan2(self.first(x), x))
        return output


class Function(torch.nn.Module):
    """Wraps a function of tensors as a module, for op tests."""

    def __init__(self, function: Callable[..., Any]) -> None:
        super().__init__()
        self.function = function

    def forward(self, *inputs: Any) -> Any:
        """Return ``function(*inputs)``."""
        return self.function(*inputs)


class MultivariateNormalLogProb(torch.nn.Module):
    """A 3-d Gaussian's log-density of ``(batch, 3)`` float32 points.

    ``validate_args=False``, since torch.export cannot trace the check.
    """

    loc: torch.Tensor
    scale_tril: torch.Tensor

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("loc", torch.tensor([0.5, -1.0, 2.0]))
        self.register_buffer(
            "scale_tril", torch.tensor([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [0.1, 0.2, 0.5]])
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the log-density of each row of ``x``, shape ``(batch,)``."""
        distribution = torch.distributions.MultivariateNormal(
            self.loc, scale_tril=self.scale_tril, validate_args=False
        )
        log_density: torch.Tensor = distribution.log_prob(x)  # type: ignore[no-untyped-call]
        return log_density
