"""Whether a quantized model's int8 products could saturate on a CPU without VNNI."""

from __future__ import annotations

import numpy as np
import openvino as ov

from ov_convert.compressed_weights import decompression_constants

_SATURATION_FREE = 64
"""The widest int8 weight whose products with u8 activations never saturate.

OpenVINO's CPU plugin runs int8 layers with oneDNN, whose kernels for CPUs
without VNNI (AVX2, AVX-512 before Cascade Lake) multiply with ``vpmaddubsw``:
it adds two u8 x s8 products into a saturating int16. ``255 * 64 * 2 = 32640``
fits; ``255 * 127 * 2`` does not, and a quantized Linear with full-range int8
weights then differs from eager by tens of quantization steps. NNCF's
overflow fix quantizes weights to 7 bits for the same reason.
"""


def int8_products_may_saturate(model: ov.Model) -> bool:
    """Whether OpenVINO's int8 kernels could saturate this model's products on a CPU without VNNI.

    True when the model quantizes activations (a ``FakeQuantize`` of a
    computed value, which OpenVINO's low-precision transformations fuse into
    int8 layers) and has a weight of more than 7 bits: an 8-bit weight
    decompression constant holding a value beyond +-64, or a ``FakeQuantize``
    of a constant with more than 129 levels (an unfolded PT2E program's
    weights). The payload records it (``Payload.wide_int8_weights``) for the
    runtime, which knows the CPU.
    """
    quantizes_activations = wide_weights = False
    for node in model.get_ordered_ops():
        if node.get_type_name() == "FakeQuantize":
            if node.input_value(0).get_node().get_type_name() != "Constant":
                quantizes_activations = True
            elif int(node.get_attributes()["levels"]) > 2 * _SATURATION_FREE + 1:
                wide_weights = True
    if not quantizes_activations:
        return False
    return wide_weights or any(
        np.abs(node.get_data().astype(np.int16)).max(initial=0) > _SATURATION_FREE
        for node in decompression_constants(model)
    )
