"""The float unary family through the whole pipeline, on tiny, huge and negative inputs.

Each op runs on the values of every range at once and must match eager to a
relative 1e-3 (NaN and infinities where eager has them). Results below
float32's smallest normal number are left out: OpenVINO's CPU plugin flushes
them to zero (``exp(-87.4)``), as most CPU kernels do.
"""

import re

import torch
from torch.nn import functional

from ov_tests import check_program
from ov_tests.models import Function

TINY = torch.cat([torch.logspace(-30, -3, 10), -torch.logspace(-30, -3, 10)])
NEGATIVE = -torch.linspace(1, 80, 10)
HUGE = torch.cat([torch.linspace(10, 80, 5), torch.logspace(2, 30, 5)])
MIDDLE = torch.linspace(-8, 8, 10)
VALUES = torch.cat([TINY, NEGATIVE, HUGE, MIDDLE]).reshape(5, 10)

OPS = {
    "softplus": functional.softplus,
    "softplus_beta": lambda x: functional.softplus(x, beta=2.0, threshold=5.0),
    "log1p": torch.log1p,
    "expm1": lambda x: torch.expm1(x.clamp(max=88.0)),
    "logsigmoid": functional.logsigmoid,
    "mish": functional.mish,
    "elu": functional.elu,
    "selu": functional.selu,
    "celu": functional.celu,
    "erf": torch.erf,
    "gelu": functional.gelu,
    "gelu_tanh": lambda x: functional.gelu(x, approximate="tanh"),
    "silu": functional.silu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "tanhshrink": functional.tanhshrink,
    "softsign": functional.softsign,
    "exp": lambda x: torch.exp(x.clamp(max=88.0)),
    "log": lambda x: torch.log(x.abs()),
    "log_sigmoid_by_hand": lambda x: torch.log(torch.sigmoid(x)),
    "log_softmax": lambda x: functional.log_softmax(x, -1),
    "softmax": lambda x: functional.softmax(x, -1),
    "logsumexp": lambda x: torch.logsumexp(x, -1),
    "logaddexp": lambda x: torch.logaddexp(x, x.flip(-1)),
    "sinh": lambda x: torch.sinh(x.clamp(-88.0, 88.0)),
    "asinh": torch.asinh,
    "atanh": lambda x: torch.atanh(x.clamp(-0.999, 0.999)),
    "sqrt": lambda x: torch.sqrt(x.abs()),
    "rsqrt": lambda x: torch.rsqrt(x.abs()),
    "reciprocal": torch.reciprocal,
}
"""Every op swept."""


def test_unary_ops_keep_relative_precision():
    # One program computes every op (one lowering); a failure names the
    # output, whose index is the op's place in OPS.
    names = list(OPS)
    every_op = Function(lambda x: tuple(OPS[name](x) for name in names))
    try:
        check_program(every_op, (VALUES,), atol=1e-37, rtol=1e-3)
    except AssertionError as error:
        output = re.search(r"output (\d+):", str(error))
        if output is None:
            raise
        raise AssertionError(f"{names[int(output[1])]}: {error}") from error
