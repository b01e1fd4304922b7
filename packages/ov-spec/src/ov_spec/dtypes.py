"""The one table of tensor dtypes: what a program may carry, and what a delegate takes.

Each row names the dtype three ways: PyTorch's (``torch.float32``), ExecuTorch's
``ScalarType`` code (the c10 numbering a ``.pte`` and the runtime use), and
OpenVINO's element type (``f32``). The partitioner, the converter and the
facade build their lookups from it; the native runtime maps ``ScalarType`` to
OpenVINO's element type in ``native/element_types.cpp``, and a test checks that
it agrees with this table.

float64 is in the table but not delegated: OpenVINO's CPU plugin computes it
in float32; nor are the unsigned types wider than 8 bits, which ExecuTorch's
own kernels take and this backend has not been checked on. Complex types,
which have no OpenVINO element type, and ExecuTorch's quantized and bit types
are left out.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dtype:
    """One dtype a delegate takes.

    Attributes:
        torch_name: The attribute of ``torch`` that is the dtype (``float32``).
        scalar_type: ExecuTorch's ``ScalarType`` code (``6`` for float32).
        element_type: OpenVINO's element type name (``f32``); also the attribute
            of ``openvino.Type``.
        delegated: Whether delegate inputs and outputs may have this dtype.
    """

    torch_name: str
    scalar_type: int
    element_type: str
    delegated: bool = True


DTYPES: tuple[Dtype, ...] = (
    Dtype("uint8", 0, "u8"),
    Dtype("int8", 1, "i8"),
    Dtype("int16", 2, "i16"),
    Dtype("int32", 3, "i32"),
    Dtype("int64", 4, "i64"),
    Dtype("float16", 5, "f16"),
    Dtype("float32", 6, "f32"),
    Dtype("float64", 7, "f64", delegated=False),
    Dtype("bool", 11, "boolean"),
    Dtype("bfloat16", 15, "bf16"),
    Dtype("uint16", 27, "u16", delegated=False),
    Dtype("uint32", 28, "u32", delegated=False),
    Dtype("uint64", 29, "u64", delegated=False),
)
"""The tensor dtypes of programs this backend handles, in ``ScalarType`` order."""

DELEGATE_DTYPES: tuple[Dtype, ...] = tuple(dtype for dtype in DTYPES if dtype.delegated)
"""The dtypes of delegate inputs and outputs."""
