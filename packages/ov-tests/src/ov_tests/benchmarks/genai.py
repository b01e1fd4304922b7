"""OpenVINO's own LLM stack (openvino.genai) on this backend's IR, for the LLM benchmark.

openvino.genai's ``LLMPipeline`` runs a stateful OpenVINO model with the
inputs ``input_ids`` and ``attention_mask`` (int64 ``[batch, n]``),
``position_ids`` (int64 ``[batch, n]``) and ``beam_idx`` (int32 ``[batch]``,
the batch order each cache is gathered in), and the output ``logits``
(``[batch, n, vocabulary]``), with the KV cache as ``ReadValue``/``Assign``
state: the form optimum-intel exports. This backend's delegate of a
transformers export whose cache became OpenVINO's own
(:mod:`ov_convert.appended_caches`) is that model but for its interface:
:func:`genai_model` renames and reshapes its inputs, so genai runs the very
weights, graph and precision this backend runs, and the comparison measures
the two runtimes alone.

The group ``genai`` of the workspace installs openvino-genai at the OpenVINO
version in use (``uv run --group genai python -m ov_tests.benchmarks.llm``).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import openvino as ov
from openvino import opset13

from ov_convert import POSITIONS_ARGUMENT

_LOGITS = "logits"
_ID_INPUTS = ("input_ids", "attention_mask", "position_ids")


def genai_model(model: ov.Model, inputs: str) -> ov.Model:
    """Give a stateful decoder's IR the interface of openvino.genai's ``LLMPipeline``, in place.

    Args:
        model: The delegate's IR: token ids (int64 ``[1, n]``), the cache
            positions (int64 ``[n]``, the payload's ``P`` argument), then
            int64 scalar counters ExecuTorch keeps (transformers'
            ``cumulative_length``); the outputs are the counters' new values,
            then the logits ``[1, n, vocabulary]``. Its KV cache is OpenVINO
            state gathered in beam order by a constant.
        inputs: The payload's input signature (``"TPTT"``), one letter per input.

    Returns:
        ``model``, with ``input_ids``, ``attention_mask`` (unused: the cache
        holds one sequence), ``position_ids`` (whose row is the cache
        positions) and ``beam_idx`` in place of its inputs, and ``logits`` as
        its one output. The counters read as 0: they feed only the shape of
        their own update, so no logit depends on them.

    Raises:
        ValueError: The model has no positions input or no logits output.
    """
    if POSITIONS_ARGUMENT not in inputs:
        raise ValueError(f"the input signature {inputs!r} has no cache positions ('P')")
    results = model.get_results()
    logits = results[-1].input_value(0)
    if logits.get_partial_shape().rank.get_length() != 3:
        raise ValueError(f"the last output is {logits.get_partial_shape()}, not [1, n, vocabulary]")
    for result in list(results):
        model.remove_result(result)

    ids, mask, position_ids = (_parameter(name, [-1, -1], ov.Type.i64) for name in _ID_INPUTS)
    beams = _parameter("beam_idx", [-1], ov.Type.i32)
    positions = inputs.index(POSITIONS_ARGUMENT)
    for index, parameter in enumerate(list(model.get_parameters())):
        if index == 0:
            new = opset13.reshape(ids, opset13.constant(np.array([1, -1])), False).output(0)
        elif index == positions:
            new = opset13.reshape(position_ids, opset13.constant(np.array([-1])), False).output(0)
        else:
            shape = parameter.get_partial_shape().to_shape()
            new = opset13.constant(np.zeros(shape, np.int64)).output(0)
        parameter.output(0).replace(new)
        model.remove_parameter(parameter)
    for op in model.get_ordered_ops():
        if (
            op.get_type_name() == "Gather"
            and op.input_value(0).get_node().get_type_name() == "ReadValue"
        ):
            op.input(1).replace_source_output(beams.output(0))
    model.add_parameters([ids, mask, position_ids, beams])
    result = opset13.result(logits)
    model.add_results([result])
    result.output(0).get_tensor().set_names({_LOGITS})
    model.validate_nodes_and_infer_types()
    return model


def _parameter(name: str, shape: list[int], element_type: ov.Type) -> ov.Node:
    parameter = opset13.parameter(shape, element_type, name=name)
    parameter.output(0).set_names({name})
    return parameter


def genai_available() -> bool:
    """Whether openvino.genai is installed (the workspace's ``genai`` group)."""
    try:
        import openvino_genai  # noqa: F401
    except ImportError:
        return False
    return True


class GenaiPipeline:
    """openvino.genai's ``LLMPipeline`` with its SDPA attention backend, generating greedily.

    Args:
        folder: Holds ``openvino_model.xml`` (and ``.bin``), a model from :func:`genai_model`.
        properties: OpenVINO properties to compile with (this backend's, for equal precision).
    """

    def __init__(self, folder: Path, properties: Mapping[str, str]) -> None:
        import openvino_genai

        self._pipeline: Any = openvino_genai.LLMPipeline(
            str(folder), "CPU", ATTENTION_BACKEND="SDPA", **dict(properties)
        )
        self._config: Any = openvino_genai.GenerationConfig()
        self._config.ignore_eos = True
        self._config.eos_token_id = 0  # genai refuses the default -1 among its stop tokens
        self._config.stop_token_ids = set()

    def generate(self, prompt: int, tokens: int) -> tuple[list[int], float, float]:
        """Generate ``tokens`` new tokens after the prompt ``1..prompt``; no token stops it.

        Returns:
            The new tokens, the time to the first token (seconds: the prefill
            and its token) and the median time of each token after it
            (seconds), from genai's own ``perf_metrics``.
        """
        self._config.max_new_tokens = self._config.min_new_tokens = tokens
        ids = ov.Tensor(np.arange(1, prompt + 1, dtype=np.int64).reshape(1, prompt))
        result = self._pipeline.generate(ids, self._config)
        metrics = result.perf_metrics
        per_token = statistics.median(metrics.raw_metrics.m_durations) / 1e6  # microseconds
        return list(result.tokens[0]), metrics.get_ttft().mean / 1e3, per_token
