"""The steps preprocess runs on the converted OpenVINO model, in order.

The graph passes (``ov_passes``) rewrite the partition before conversion; these
rewrite the OpenVINO model after it, before it is serialized:

1. :func:`~ov_convert.states.make_stateful`: the buffers the partition mutates
   become ``ReadValue``/``Assign`` state. First, since the next steps leave
   stateful operations alone. Then
   :func:`~ov_convert.appended_caches.append_caches`: a static KV cache becomes
   state that grows, in the form OpenVINO's CPU plugin fuses into its own
   cache-aware attention.
2. :func:`~ov_convert.constant_readers.fold_constant_readers`: computations on
   constants alone that read a compressed weight become constants (OpenVINO's
   CPU plugin fails to compile some of them).
3. :func:`~ov_convert.compressed_weights.four_bit_weights`: 8-bit weights whose
   values fit in 4 bits are stored as i4/u4, once folding has removed
   readers other than the weight decompression.
4. :func:`~ov_convert.shared_matmul_operands.align_matmul_transposes`: an
   operand several MatMuls read both transposed and not is read with one flag
   (OpenVINO's CPU plugin computes the mixed form wrong).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import openvino as ov

from ov_convert.appended_caches import append_caches
from ov_convert.compressed_weights import four_bit_weights
from ov_convert.constant_readers import fold_constant_readers
from ov_convert.shared_matmul_operands import align_matmul_transposes
from ov_convert.states import State, make_stateful

logger = logging.getLogger(__name__)


def finish_model(
    model: ov.Model, states: Sequence[State], num_inputs: int, num_outputs: int
) -> ov.Model:
    """Run the model steps above on a converted partition; return the model to serialize.

    Args:
        model: The converted partition, whose parameters are its ``num_inputs``
            user inputs then each state's initial value, and whose results are
            its ``num_outputs`` outputs then each state's update.
        states: The partition's mutated buffers (:func:`ov_convert.states.lift_states`).
        num_inputs: The partition's user inputs.
        num_outputs: The partition's user outputs.
    """
    model = make_stateful(model, list(states), num_inputs, num_outputs)
    model, caches = append_caches(model)
    folded = fold_constant_readers(model)
    narrowed = four_bit_weights(model)
    aligned = align_matmul_transposes(model)
    logger.debug(
        "finished a converted model: %d states (%d of them KV caches that grow), %d constant "
        "computations on compressed weights folded, %d weights stored in 4 bits, %d MatMuls "
        "reading a shared operand transposed",
        len(states),
        caches,
        folded,
        narrowed,
        aligned,
    )
    return model
