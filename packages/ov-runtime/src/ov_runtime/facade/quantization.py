"""Quantize a model to int8 with PT2E, ready for :func:`ov_runtime.lower`."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class QuantizedModel:
    """A model quantized by :func:`quantize`.

    Attributes:
        module: The converted model (``convert_pt2e``, int8 weights folded into
            constants); export and lower it like any model.
        quantizer: The quantizer that chose what to quantize:
            ``"OpenVINOQuantizer"`` (NNCF's, through ExecuTorch's
            ``executorch.backends.openvino.quantizer``) or ``"XNNPACKQuantizer"``.
    """

    module: torch.fx.GraphModule
    quantizer: str


def quantize(
    model: torch.nn.Module,
    example_inputs: Sequence[Any],
    calibration: Iterable[Sequence[Any]] = (),
    quantizer: Any = None,
) -> QuantizedModel:
    """Quantize ``model``'s weights and activations to int8 with PyTorch 2 export quantization.

    The quantizer is NNCF's ``OpenVINOQuantizer`` when NNCF is installed (the
    optional ``builtin-openvino`` group): it marks what OpenVINO's int8 kernels
    take. Otherwise it is ExecuTorch's ``XNNPACKQuantizer`` with symmetric
    per-channel weights and static activations, whose quantize/dequantize
    pattern OpenVINO fuses into int8 Convolution and FullyConnected kernels
    just as well (check with :func:`ov_runtime.runtime_precisions`).

    Args:
        model: The float model, in eval mode.
        example_inputs: Inputs for ``torch.export.export``.
        calibration: Input tuples the observers see to choose the scales;
            without any, ``example_inputs`` alone, with a warning, since one
            sample gives poor ranges.
        quantizer: A PT2E ``Quantizer`` to use instead of
            :func:`default_quantizer`'s.

    Returns:
        The converted model (int8 weights folded, the ``convert_pt2e``
        default) and which quantizer was used.
    """
    from torchao.quantization.pt2e import allow_exported_model_train_eval
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    if quantizer is None:
        quantizer, name = default_quantizer()
    else:
        name = type(quantizer).__name__
    captured = torch.export.export(model.eval(), tuple(example_inputs)).module()
    prepared = prepare_pt2e(captured, quantizer)
    samples = 0
    with torch.no_grad():
        for inputs in calibration:
            prepared(*inputs)
            samples += 1
        if samples == 0:
            logger.warning("no calibration inputs: the scales come from the example inputs alone")
            prepared(*example_inputs)
    converted = convert_pt2e(prepared)
    allow_exported_model_train_eval(converted)  # so that eval() works on it, as on any model
    logger.info("quantized with %s on %d calibration input(s)", name, max(samples, 1))
    return QuantizedModel(converted, name)


def default_quantizer(nncf: bool = True) -> tuple[Any, str]:
    """Return the PT2E quantizer :func:`quantize` uses, and its class name.

    NNCF's ``OpenVINOQuantizer`` when NNCF is installed and ``nncf`` is true,
    otherwise ExecuTorch's ``XNNPACKQuantizer`` with symmetric per-channel
    int8 weights and static int8 activations, changed to keep integer
    arithmetic integer (see :func:`_xnnpack_quantizer`).
    """
    if nncf:
        try:
            from executorch.backends.openvino.quantizer import OpenVINOQuantizer
        except ImportError:  # NNCF is not installed
            pass
        else:
            return OpenVINOQuantizer(), "OpenVINOQuantizer"
    return _xnnpack_quantizer(), "XNNPACKQuantizer"


def _xnnpack_quantizer() -> Any:
    """ExecuTorch's ``XNNPACKQuantizer`` without its scalar-to-tensor rewrite.

    Before annotating, ``XNNPACKQuantizer`` turns every number added to or
    multiplied with a tensor into a float32 tensor, integer operations
    included. In transformers' models ``arange(n) + 0`` then gives float
    positions, and the indexing they feed fails while calibrating. Its
    annotators skip operands that are numbers, so nothing else changes.
    """
    from executorch.backends.xnnpack.quantizer import xnnpack_quantizer

    class XNNPACKQuantizer(xnnpack_quantizer.XNNPACKQuantizer):  # type: ignore[misc]
        def transform_for_annotation(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
            return model

    config = xnnpack_quantizer.get_symmetric_quantization_config(is_per_channel=True)
    return XNNPACKQuantizer().set_global(config)
