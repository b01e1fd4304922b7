"""Which edge-dialect nodes OpenVINO can run, and why the others stay on the CPU.

Each check is one function that returns ``None`` when the node passes or a
reason when it does not. The first reason found is recorded, so a report can
say why a node stayed on ExecuTorch's CPU kernels.
"""

from __future__ import annotations

import functools
import logging
import operator
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import cast

import torch
from executorch.exir.passes.dim_order_ops_registry import MemoryFormatOpsMap
from openvino.frontend.pytorch.torchdynamo.op_support import OperatorSupport
from torch.fx.experimental.symbolic_shapes import statically_known_true
from torch.fx.passes.operator_support import OperatorSupportBase

from ov_partition.trial_lowering import registered_backend
from ov_spec import DELEGATE_DTYPES, op_name, target_name

logger = logging.getLogger(__name__)

SUPPORTED_DTYPES = frozenset(getattr(torch, dtype.torch_name) for dtype in DELEGATE_DTYPES)
"""Tensor dtypes a delegate reads and writes (``ov_spec.DELEGATE_DTYPES``)."""

# OpenVINO converts these to ReduceMin, ReduceMax, Minimum, Maximum and Sign,
# which refuse bool tensors.
_NO_BOOL_ONLY_INPUTS = frozenset(
    {"aten.min", "aten.max", "aten.amin", "aten.amax", "aten.minimum", "aten.maximum"}
    | {"aten.clamp", "aten.sign"}
)

# OpenVINO's CPU plugin computes these on integer tensors in float32, exact
# only up to 2**24 (16,777,216 + 1 gives 16,777,216).
_FLOAT_COMPUTED = frozenset(
    {"aten.sum", "aten.amax", "aten.amin", "aten.max", "aten.min", "aten.argmax", "aten.argmin"}
    | {"aten.mm", "aten.bmm", "aten.addmm", "aten.matmul"}
)

# OpenVINO's CPU plugin saturates int8 and uint8 results of these, where
# PyTorch wraps around (100 + 100 gives 127, not -56), and computes int16 ones
# in float32 inside a fused chain (2026.4: ``where(b > 4, a * b, a)`` gave 0 for
# ``32767 * 32765``, which wraps to 3).
_ARITHMETIC = frozenset(
    {"aten.add", "aten.sub", "aten.rsub", "aten.mul", "aten.neg", "aten.abs", "aten.pow"}
    | {"aten.square", "aten.div", "aten.floor_divide", "aten.remainder", "aten.fmod"}
)
_SATURATED_TYPES = frozenset({torch.int8, torch.uint8, torch.int16})

Check = Callable[[torch.fx.Node], "str | None"]


@functools.cache
def _frontend() -> OperatorSupport:
    return OperatorSupport([])


def overload(name: str) -> object | None:
    """The op ``name`` (``aten.addmm.default``, ``_operator.getitem``) names, or None."""
    if name.startswith("_operator."):
        return getattr(operator, name.split(".", 1)[1], None)
    namespace, _, rest = name.partition(".")
    packet, _, overload_name = rest.rpartition(".")
    return getattr(getattr(getattr(torch.ops, namespace, None), packet, None), overload_name, None)


@functools.cache
def frontend_converts(name: str) -> bool:
    """Ask OpenVINO's PyTorch frontend whether it converts the aten op ``name``.

    ``name`` is an overload name such as ``aten.addmm.default``. The frontend's
    ``OperatorSupport`` answers for a node whose target is the aten overload,
    so a one-node graph with that target stands in for the edge-dialect node.
    """
    target = overload(name)
    if not callable(target):
        return False
    graph = torch.fx.Graph()
    probe = graph.call_function(target)
    return bool(_frontend().is_node_supported({}, probe))


# The frontend's FX op table converts nonzero (to NonZero and a Transpose) and
# scaled_dot_product_attention (to ScaledDotProductAttention), which its
# torchdynamo OperatorSupport list leaves out.
_FRONTEND_UNLISTED = frozenset(
    {"aten.nonzero.default", "aten.scaled_dot_product_attention.default"}
)

_DIM_ORDER_OPS = frozenset(target_name(op) for op in MemoryFormatOpsMap)
"""Edge dialect's dim-order ops, ExecuTorch's spelling of aten's memory-format copies
(``_to_dim_order_copy``, ``_clone_dim_order``): every ExecuTorch backend takes them, and
this one's preprocess turns them back into the aten ops (ExecuTorch's ``MemoryFormatOpsMap``)."""


def preprocess_converts() -> frozenset[str]:
    """The ops this backend's preprocess makes convertible beyond the frontend's own.

    The registered backend class declares them (``converted_ops``: the ops its
    passes rewrite and its conversion extensions); none while no backend is
    imported.
    """
    return frozenset(getattr(registered_backend(), "converted_ops", ()))


def converts(name: str) -> bool:
    """Whether lowering converts the op ``name`` (``aten.add.Tensor``) for OpenVINO.

    True for the ops OpenVINO's PyTorch frontend converts, for edge dialect's
    dim-order copies, and for those the backend's preprocess makes
    convertible (:func:`preprocess_converts`).
    """
    return (
        name in _FRONTEND_UNLISTED | _DIM_ORDER_OPS
        or name in preprocess_converts()
        or frontend_converts(name)
    )


HIGHER_ORDER_OPS = frozenset({"higher_order.cond", "higher_order.while_loop"})
"""Control flow OpenVINO's PyTorch frontend converts whole (to ``If`` and
``Loop``) when it converts every op of its branches or body."""


def branches(node: torch.fx.Node) -> list[tuple[torch.fx.Node, torch.fx.GraphModule]]:
    """The ``get_attr`` nodes of a ``cond`` or ``while_loop`` node with the graphs they read.

    ``cond(pred, true_fn, false_fn, operands)`` and ``while_loop(cond_fn,
    body_fn, carried, additional)`` name their graphs as ``get_attr`` nodes of
    the owning graph module; other nodes have none.
    """
    if op_name(node) not in HIGHER_ORDER_OPS:
        return []
    owner = node.graph.owning_module
    found = []
    for argument in node.args:
        if isinstance(argument, torch.fx.Node) and argument.op == "get_attr":
            graph = getattr(owner, str(argument.target), None)
            if isinstance(graph, torch.fx.GraphModule):
                found.append((argument, graph))
    return found


def _check_callable(node: torch.fx.Node) -> str | None:
    if node.op != "call_function":
        return f"a {node.op} node is not an operation"
    return None


def _check_frontend(node: torch.fx.Node) -> str | None:
    name = op_name(node)
    if name in HIGHER_ORDER_OPS or converts(name):
        return None
    return f"OpenVINO's PyTorch frontend does not convert {name}"


def _tensor_values(value: object) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensor_values(item)]
    return []


def _input_tensors(node: torch.fx.Node) -> list[torch.Tensor]:
    return [t for arg in node.all_input_nodes for t in _tensor_values(arg.meta.get("val"))]


def op_packet(node: torch.fx.Node) -> str:
    """The op name without its overload: ``aten.max`` for ``aten.max.dim``; ``""`` for a non-call."""
    return op_name(node).rsplit(".", 1)[0]


def _check_dtypes(node: torch.fx.Node) -> str | None:
    for value in _tensor_values(node.meta.get("val")) + _input_tensors(node):
        if value.dtype not in SUPPORTED_DTYPES:
            return (
                f"{op_name(node)} reads or writes {value.dtype}, which the delegate does not take"
            )
    return None


def _check_bool_only_inputs(node: torch.fx.Node) -> str | None:
    if op_packet(node) not in _NO_BOOL_ONLY_INPUTS:
        return None
    inputs = _input_tensors(node)
    if inputs and all(t.dtype == torch.bool for t in inputs):
        return f"OpenVINO's {op_packet(node)} refuses bool tensors"
    return None


def _check_integers_computed_in_float32(node: torch.fx.Node) -> str | None:
    if op_packet(node) not in _FLOAT_COMPUTED:
        return None
    if any(not t.is_floating_point() for t in _input_tensors(node)):
        return (
            f"OpenVINO's CPU plugin computes {op_packet(node)} of integer tensors in float32, "
            "exact only up to 2**24"
        )
    return None


def _check_narrow_integer_arithmetic(node: torch.fx.Node) -> str | None:
    if op_packet(node) not in _ARITHMETIC:
        return None
    for value in _tensor_values(node.meta.get("val")):
        if value.dtype in _SATURATED_TYPES:
            return (
                f"OpenVINO's CPU plugin saturates or rounds {value.dtype} {op_packet(node)} "
                "where PyTorch wraps"
            )
    return None


def _check_fractional_arange(node: torch.fx.Node) -> str | None:
    if op_packet(node) == "aten.arange" and any(isinstance(a, float) for a in node.args):
        return "OpenVINO's frontend gives zeros for arange with fractional bounds or step"
    return None


def _check_integer_clamp_with_float_bounds(node: torch.fx.Node) -> str | None:
    if op_packet(node) != "aten.clamp" or not any(isinstance(a, float) for a in node.args[1:]):
        return None
    if any(not t.is_floating_point() for t in _input_tensors(node)):
        return "OpenVINO's frontend truncates float clamp bounds of an integer tensor"
    return None


def _check_float_floor_division(node: torch.fx.Node) -> str | None:
    name = op_name(node)
    floor = name == "aten.floor_divide.default" or (
        op_packet(node) == "aten.div" and node.kwargs.get("rounding_mode") == "floor"
    )
    if floor and any(t.is_floating_point() for t in _tensor_values(node.meta.get("val"))):
        return (
            "OpenVINO takes floor(a / b), which rounds quotients near a whole number "
            "differently from PyTorch's floor division"
        )
    return None


def _check_float_modulus(node: torch.fx.Node) -> str | None:
    if op_packet(node) in ("aten.fmod", "aten.remainder") and any(
        t.is_floating_point() for t in _tensor_values(node.meta.get("val"))
    ):
        return (
            f"OpenVINO computes a float {op_packet(node)} as a - b * trunc(a / b) in float32, "
            "wrong for large quotients (fmod(-2**31, 3) gave 0) and NaN for an infinite "
            "divisor; ExecuTorch's kernel is exact"
        )
    return None


def _check_avg_pool_divisor_override(node: torch.fx.Node) -> str | None:
    # avg_poolNd(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    if (
        op_packet(node).startswith("aten.avg_pool")
        and len(node.args) > 6
        and node.args[6] is not None
    ):
        return "OpenVINO's frontend does not convert avg_pool with divisor_override"
    return None


def _argument(node: torch.fx.Node, position: int, name: str, default: object) -> object:
    return node.args[position] if len(node.args) > position else node.kwargs.get(name, default)


def _check_preprocess_limits(node: torch.fx.Node) -> str | None:
    """A limit the registered backend's preprocess declares for ``node`` (a pass's ``limit``)."""
    refusal = getattr(registered_backend(), "refusal", None)
    return None if refusal is None else cast("str | None", refusal(node))


def _check_embedding_bag_options(node: torch.fx.Node) -> str | None:
    # _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
    #                per_sample_weights, include_last_offset, padding_idx)
    if op_packet(node) not in ("aten._embedding_bag", "aten.embedding_bag"):
        return None
    if _argument(node, 4, "mode", 0) not in (0, 1):
        return "OpenVINO's frontend converts embedding_bag in sum and mean mode only, not max"
    if _argument(node, 7, "include_last_offset", False):
        return "OpenVINO's frontend does not convert embedding_bag with include_last_offset=True"
    return None


def _check_topk_of_nothing(node: torch.fx.Node) -> str | None:
    if op_packet(node) == "aten.topk" and _argument(node, 1, "k", None) == 0:
        return "OpenVINO's TopK takes k >= 1; topk with k=0 stays on the CPU"
    return None


def _check_nonzero_of_a_scalar(node: torch.fx.Node) -> str | None:
    inputs = _input_tensors(node)
    if op_packet(node) == "aten.nonzero" and inputs and inputs[0].dim() == 0:
        return (
            "OpenVINO's nonzero of a 0-d tensor holds one index where PyTorch's (1, 0) "
            "holds none; it stays on the CPU"
        )
    return None


def _check_gather_of_a_smaller_index(node: torch.fx.Node) -> str | None:
    # gather(self, dim, index); PyTorch reads only the first index.size(d) entries of each other dim
    if op_packet(node) != "aten.gather":
        return None
    source, index = (
        arg.meta.get("val") if isinstance(arg, torch.fx.Node) else None
        for arg in (node.args[0], node.args[2])
    )
    if (
        not isinstance(source, torch.Tensor)
        or not isinstance(index, torch.Tensor)
        or index.dim() != source.dim()
    ):
        return None
    axis = int(cast("int", node.args[1])) % max(source.dim(), 1)
    if all(
        statically_known_true(index.shape[d] == source.shape[d])
        for d in range(source.dim())
        if d != axis
    ):
        return None
    return (
        "gather with an index that may be smaller than its input outside dim: OpenVINO's "
        "GatherElements needs both shapes equal there (with a size known only at run time the "
        "CPU plugin fails at inference), and drops a Slice put before it"
    )


# Ops that leave the values as they are; the passes drop those that change no
# shape (ov_passes.no_op_aliases), so a pattern can form across them.
_SAME_VALUES = frozenset(
    {"aten.squeeze_copy", "aten.unsqueeze_copy", "aten.view_copy", "aten.alias_copy"}
    | {"aten.clone", "aten.expand_copy", "aten.squeeze", "aten.unsqueeze", "aten.view"}
    | {"dim_order_ops._clone_dim_order"}
)


def _source(value: object) -> object:
    """``value`` before any op of ``_SAME_VALUES``."""
    while isinstance(value, torch.fx.Node) and op_packet(value) in _SAME_VALUES:
        value = value.args[0]
    return value


def _check_integer_maximum_of_a_multiple(node: torch.fx.Node) -> str | None:
    if op_packet(node) != "aten.maximum" or not all(
        not t.is_floating_point() for t in _tensor_values(node.meta.get("val"))
    ):
        return None
    first, second = (_source(arg) for arg in node.args[:2])
    for product, other in ((first, second), (second, first)):
        # The frontend converts neg to a Multiply by -1.
        if not isinstance(product, torch.fx.Node) or op_packet(product) not in (
            "aten.mul",
            "aten.neg",
        ):
            continue
        if other in [_source(arg) for arg in product.args]:
            return (
                "OpenVINO fuses an integer maximum(x, x * c), c <= 1, into a PRelu "
                "(LeakyReluFusion), which its CPU plugin computes in float32, exact only "
                "up to 2**24"
            )
    return None


MAX_CAT_INPUTS = 4096
"""The most tensors a delegated ``cat`` joins: the runtime refuses an IR layer with more inputs
(``kMaxLayerInputs`` in ``native/ir_outline.h``), since OpenVINO's CPU plugin compiles a Concat in
time that grows with the square of its inputs (6.4 s for 4,000, over 120 s for 20,000)."""


def _check_wide_cat(node: torch.fx.Node) -> str | None:
    tensors = _argument(node, 0, "tensors", ())
    if (
        op_packet(node) == "aten.cat"
        and isinstance(tensors, list)
        and len(tensors) > MAX_CAT_INPUTS
    ):
        return (
            f"cat of {len(tensors)} tensors: OpenVINO's CPU plugin compiles a Concat of more than "
            f"{MAX_CAT_INPUTS} inputs in time that grows with the square of their count"
        )
    return None


def _check_integer_scatter_mean(node: torch.fx.Node) -> str | None:
    # scatter_reduce.two(self, dim, index, src, reduce, *, include_self=True)
    if op_packet(node) != "aten.scatter_reduce" or _argument(node, 4, "reduce", None) != "mean":
        return None
    if any(not t.is_floating_point() for t in _tensor_values(node.meta.get("val"))):
        return (
            "OpenVINO's ScatterElementsUpdate truncates an integer mean toward zero, "
            "where PyTorch floors it"
        )
    return None


CHECKS: Sequence[Check] = (
    _check_callable,
    _check_frontend,
    _check_dtypes,
    _check_bool_only_inputs,
    _check_integers_computed_in_float32,
    _check_narrow_integer_arithmetic,
    _check_fractional_arange,
    _check_integer_clamp_with_float_bounds,
    _check_avg_pool_divisor_override,
    _check_float_floor_division,
    _check_float_modulus,
    _check_embedding_bag_options,
    _check_preprocess_limits,
    _check_topk_of_nothing,
    _check_nonzero_of_a_scalar,
    _check_gather_of_a_smaller_index,
    _check_integer_scatter_mean,
    _check_integer_maximum_of_a_multiple,
    _check_wide_cat,
)
"""The support checks, in the order they run."""


def _scalar_read_on_cpu(node: torch.fx.Node, support: OpenvinoOperatorSupport) -> str | None:
    """Why a node that gives a scalar (``sym_size``) stays on the CPU: a CPU node reads it.

    ExecuTorch cannot emit a delegate whose output is a scalar (``Invalid node
    spec expected TensorSpec``), which such a node in a partition would be when
    a runtime assert of an unbacked size reads it.
    """
    if node.op != "call_function" or isinstance(node.meta.get("val"), torch.Tensor):
        return None
    for user in node.users:
        if user.op == "call_function" and support._op_reason(user) is not None:
            return f"its scalar result is read by {user.name} on the CPU, and a delegate outputs tensors only"
    return None


class OpenvinoOperatorSupport(OperatorSupportBase):
    """Answers ``is_node_supported`` for ``CapabilityBasedPartitioner`` and records rejections.

    Args:
        skip_ops: Op names (``aten.nonzero.default``) the caller keeps on the CPU.
        refused: Node name to the reason OpenVINO's converter refused that node
            in a trial lowering; those nodes stay on the CPU.
        narrowed: Node name to the reason OpenVINO would compute that node's
            integers narrower than PyTorch (``ranges.narrowing.narrowed_nodes``);
            those stay on the CPU too, with the reason of any other check first.

    Attributes:
        rejections: Node name to the reason it stays on ExecuTorch's CPU kernels,
            for the call_function nodes checked so far.
    """

    def __init__(
        self,
        skip_ops: Collection[str] = (),
        refused: Mapping[str, str] | None = None,
        narrowed: Mapping[str, str] | None = None,
    ) -> None:
        """Start with no rejections recorded."""
        super().__init__()
        self.skip_ops = frozenset(skip_ops)
        self.refused = dict(refused or {})
        self.narrowed = dict(narrowed or {})
        self.rejections: dict[str, str] = {}

    def _reason(self, node: torch.fx.Node) -> str | None:
        if node.name in self.refused:
            return self.refused[node.name]
        return (
            self._op_reason(node) or self.narrowed.get(node.name) or _scalar_read_on_cpu(node, self)
        )

    def _op_reason(self, node: torch.fx.Node) -> str | None:
        """Why the op of ``node`` stays on the CPU, from skip_ops and CHECKS, through its branches."""
        if node.op == "call_function" and op_name(node) in self.skip_ops:
            return f"{op_name(node)} is in the partitioner's skip_ops"
        for check in CHECKS:
            reason = check(node)
            if reason is not None:
                return reason
        for attribute, graph in branches(node):
            for inner in graph.graph.nodes:
                reason = self._op_reason(inner) if inner.op == "call_function" else None
                if reason is not None:
                    return f"its graph {attribute.target} holds {inner.name}, which OpenVINO cannot take: {reason}"
        return None

    def is_node_supported(
        self, submodules: Mapping[str, torch.nn.Module], node: torch.fx.Node
    ) -> bool:
        """Return whether every check passes for ``node``; record the first failure's reason."""
        reason = self._reason(node)
        if reason is not None and node.op == "call_function":
            self.rejections[node.name] = reason
            logger.debug("node %s stays on the CPU: %s", node.name, reason)
        return reason is None
