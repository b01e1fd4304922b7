"""NaN through clamps, maxima and ``exp`` as in PyTorch.

OpenVINO's CPU plugin drops NaN where PyTorch keeps it: ``relu``, ``clamp``,
``hardtanh`` and ``maximum`` of NaN give a bound or the other operand, ``exp``
of NaN gives inf, and ``amax`` and ``softmax`` skip NaN (measured through the
delegate: ``relu(nan)`` gave 0, ``amax([nan, 2])`` gave 2). Each such float op
becomes ``where(isnan(x), nan, op(x))``, with ``isnan`` reduced over the same
dims for a reduction, which also tells where ``amax`` (``amin``) reduces
``-inf`` (``inf``) alone; a softmax's row is NaN where PyTorch's is (NaN or
+inf in it, or only -inf).

``relu(x)`` becomes ``maximum(0, x)`` instead, the zero first: the CPU
plugin's ``Maximum`` returns its second operand where either is NaN (x86's
``maxps``), and keeps fusing it into the matrix product before it, where the
``where`` cost a separate pass over the product (3.6% of a 4-layer MLP's call;
measured on OpenVINO 2026.4). A ``relu`` whose every user is a quantize stays
OpenVINO's ``Relu``: its low-precision transformations compute a
``Maximum(0, x)`` between FakeQuantizes wrong (a PT2E int8 Linear, ReLU,
Linear came out 0.17 off, where the outputs reach 0.53), while they take
``Relu`` as it is. There NaN meets a quantize, whose integer for NaN eager
leaves to the C cast (0 on x86) and OpenVINO to its FakeQuantize.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

import torch

from ov_passes.declarations import Stage, declare
from ov_passes.pipeline import call_function, redirect_users, reduced_dims
from ov_passes.quantization import QUANTIZE
from ov_spec import op_name

aten = torch.ops.aten

_RELU = "aten.relu.default"
_SIGN = "aten.sign.default"
_ELEMENTWISE = frozenset(
    {
        "aten.clamp.default",
        "aten.clamp.Tensor",
        "aten.hardtanh.default",
        "aten.exp.default",
    }
)
_BINARY = frozenset({"aten.maximum.default", "aten.minimum.default"})
_REDUCTIONS = frozenset({"aten.amax.default", "aten.amin.default"})
_SOFTMAX = frozenset(
    {"aten._softmax.default", "aten._log_softmax.default"}
    | {"aten.softmax.int", "aten.log_softmax.int"}
)
_ARG = frozenset({"aten.argmax.default", "aten.argmin.default"})
_WITH_INDICES = frozenset({"aten.max.dim", "aten.min.dim"})
_POOLS = frozenset({"aten.max_pool2d_with_indices.default", "aten.max_pool3d_with_indices.default"})


def _is_float(node: object) -> bool:
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def _any_over(graph: torch.fx.Graph, mask: torch.fx.Node, dims: list[int]) -> torch.fx.Node:
    """A bool ``mask`` reduced with ``any`` over ``dims`` (kept): OpenVINO reduces floats, not bools."""
    as_floats = call_function(graph, aten._to_copy.default, (mask,), {"dtype": torch.float32})
    total = call_function(graph, aten.amax.default, (as_floats, dims, True))
    return call_function(graph, aten.ne.Scalar, (total, 0.0))


def _nan_floats(graph: torch.fx.Graph, x: torch.fx.Node) -> torch.fx.Node:
    """``isnan(x)`` as 0.0 and 1.0 (OpenVINO reduces and pools floats, not bools)."""
    nan = call_function(graph, aten.isnan.default, (x,))
    return call_function(graph, aten._to_copy.default, (nan,), {"dtype": torch.float32})


def _any_nan_over(
    graph: torch.fx.Graph, x: torch.fx.Node, dims: object, keep: bool
) -> torch.fx.Node:
    every = reduced_dims(x, dims)
    mask = _any_over(graph, call_function(graph, aten.isnan.default, (x,)), every)
    return mask if keep else call_function(graph, aten.squeeze.dims, (mask, every))


def _first_nan(graph: torch.fx.Graph, x: torch.fx.Node, dim: object, keep: bool) -> torch.fx.Node:
    """The index of the first NaN along ``dim`` (PyTorch's arg-max and arg-min of a row with NaN)."""
    return call_function(graph, aten.argmax.default, (_nan_floats(graph, x), dim, keep))


def _isnan_of_floats(graph: torch.fx.Graph, operands: list[object]) -> torch.fx.Node | None:
    """``isnan`` of the float operands or-ed together; None when none is float.

    A bool or integer operand of a float result holds no NaN, and OpenVINO's
    converter has no ``isnan`` for it.
    """
    masks = [
        call_function(graph, aten.isnan.default, (operand,))
        for operand in operands
        if isinstance(operand, torch.fx.Node) and _is_float(operand)
    ]
    if not masks:
        return None
    mask = masks[0]
    for other in masks[1:]:
        mask = call_function(graph, aten.bitwise_or.Tensor, (mask, other))
    return mask


def _propagated(node: torch.fx.Node) -> torch.fx.Node | None:
    """The NaN mask ``node``'s result must carry, or None when ``node`` is not rewritten."""
    name = op_name(node)
    graph = node.graph
    x = node.args[0]
    if not isinstance(x, torch.fx.Node) or not _is_float(node):
        return None
    if name in _ELEMENTWISE:
        return _isnan_of_floats(graph, [x])
    if name in _BINARY:
        return _isnan_of_floats(graph, [x, node.args[1]])
    return None


def _extremum_as_pytorch(node: torch.fx.Node, x: torch.fx.Node) -> torch.fx.Node:
    """A float ``amax`` (``amin``) that is NaN where its elements hold NaN, -inf (inf) where all are.

    OpenVINO's CPU ``ReduceMax`` starts at the lowest float and its
    ``ReduceMin`` at the highest, so ``amax([-inf, -inf])`` gave
    ``-3.4028235e38`` (measured on 2026.4.1). One reduction of the keys
    ``isnan(x) + (x != bound)`` tells both: 2 where an element is NaN, 0 where
    every element is the bound.
    """
    graph = node.graph
    bound = -math.inf if op_name(node) == "aten.amax.default" else math.inf
    dims = reduced_dims(x, node.args[1] if len(node.args) > 1 else [])
    keep = bool(node.args[2]) if len(node.args) > 2 else False
    unbounded = call_function(graph, aten.ne.Scalar, (x, bound))
    keys = call_function(
        graph,
        aten.add.Tensor,
        (
            _nan_floats(graph, x),
            call_function(graph, aten._to_copy.default, (unbounded,), {"dtype": torch.float32}),
        ),
    )
    total = call_function(graph, aten.amax.default, (keys, dims, keep))
    dtype = node.meta["val"].dtype
    nan = call_function(graph, aten.ge.Scalar, (total, 2.0))
    fill = call_function(
        graph,
        aten.where.self,
        (
            nan,
            _nan(graph, node),
            call_function(graph, aten.scalar_tensor.default, (bound,), {"dtype": dtype}),
        ),
    )
    special = call_function(graph, aten.ne.Scalar, (total, 1.0))
    return call_function(graph, aten.where.self, (special, fill, node))


def _softmax_as_pytorch(node: torch.fx.Node) -> bool:
    """Make a float (log-)softmax NaN throughout each row where PyTorch's is.

    PyTorch subtracts the row's maximum first, so a row holding NaN or +inf
    (``inf - inf``) or holding only -inf (``-inf - -inf``) is NaN throughout;
    OpenVINO's CPU plugin gives NaN only at the NaN or inf itself (measured on
    2026.4: ``softmax([inf, 1, 2])`` gave ``[nan, 0, 0]``). Each such row
    has a NaN in OpenVINO's result too, at the NaN or +inf, or everywhere for
    only -inf, and no other row has one (the maximum it subtracts is finite,
    so a -inf element gives 0, or -inf for ``log_softmax``). So the rows are
    found in the result, in one reduction over it: measured on 2026.4.1 for
    float32 at f32 and bf16 precision and for float16, in both ops.

    Returns:
        True when the softmax is a float one, and so rewritten.
    """
    if not _is_float(node):
        return False
    graph = node.graph
    dims = reduced_dims(node, node.args[1])
    with graph.inserting_before(node.next):
        nan = call_function(graph, aten.isnan.default, (node,))
        rows = _any_over(graph, nan, dims)
        selected = call_function(graph, aten.where.self, (rows, _nan(graph, node), node))
    redirect_users(node, selected, nan)
    return True


def _nan_windows(
    node: torch.fx.Node, x: torch.fx.Node, with_index: bool
) -> tuple[torch.fx.Node, torch.fx.Node | None, torch.fx.Node | None]:
    """Which windows of a max pooling hold NaN, the index PyTorch gives there, and which hold -inf alone.

    PyTorch's kernel takes each NaN it meets, so a window's index is that of
    its last NaN in row-major order: the largest flat spatial position. Pooling
    ``(position + 1) * isnan(x)`` (exact in float32 below 2**24 positions)
    gives it, and 0 where the window holds none. OpenVINO's ``MaxPool`` index
    of such a window is another element's. Without ``with_index``, and for
    spatial sizes known only at run time, ``2 * isnan(x) + (x != -inf)`` is
    pooled instead: above 2 where a window holds NaN, 0 where it holds -inf
    alone (OpenVINO gives such a window its lowest float; ``lowest_windows``
    serves poolings whose indices are read). The index and the windows of
    -inf are None where not built.
    """
    graph = node.graph
    spatial = list(x.meta["val"].shape[-(2 if "2d" in op_name(node) else 3) :])
    keys = _nan_floats(graph, x)
    with_index = (
        with_index and all(isinstance(size, int) for size in spatial) and math.prod(spatial) < 2**24
    )
    if with_index:
        count = math.prod(spatial)
        positions = call_function(
            graph, aten.arange.start, (1, count + 1), {"dtype": torch.float32}
        )
        positions = call_function(graph, aten.view.default, (positions, spatial))
        keys = call_function(graph, aten.mul.Tensor, (keys, positions))
    else:
        above = call_function(graph, aten.ne.Scalar, (x, -math.inf))
        keys = call_function(
            graph,
            aten.add.Tensor,
            (
                call_function(graph, aten.mul.Scalar, (keys, 2.0)),
                call_function(graph, aten._to_copy.default, (above,), {"dtype": torch.float32}),
            ),
        )
    pooled = call_function(graph, node.target, (keys, *node.args[1:]))
    last = call_function(graph, operator.getitem, (pooled, 0))
    # OpenVINO pools a window of padding alone to its lowest float (see padding_windows).
    if not with_index:
        mask = call_function(graph, aten.gt.Scalar, (last, 2.0))
        return mask, None, call_function(graph, aten.eq.Scalar, (last, 0.0))
    mask = call_function(graph, aten.gt.Scalar, (last, 0.0))
    position = call_function(graph, aten.sub.Tensor, (last, 1.0))
    index = call_function(graph, aten._to_copy.default, (position,), {"dtype": torch.int64})
    return mask, index, None


def _with_indices(node: torch.fx.Node) -> bool:
    """Rewrite the outputs of ``max.dim``/``min.dim`` or a max pooling that the graph reads."""
    graph, x = node.graph, node.args[0]
    if not isinstance(x, torch.fx.Node) or not _is_float(x):
        return False
    readers = {user.args[1]: user for user in node.users if user.target is operator.getitem}
    alone = None
    with graph.inserting_before(node.next):
        if op_name(node) in _POOLS:
            mask, index, alone = _nan_windows(node, x, 1 in readers)
        else:
            dim, keep = node.args[1], bool(node.args[2]) if len(node.args) > 2 else False
            mask = _any_nan_over(graph, x, dim, keep)
            index = _first_nan(graph, x, dim, keep) if 1 in readers else None
    for position, reader in readers.items():
        if position == 1 and index is None:
            continue  # indices of dynamic spatial sizes keep OpenVINO's answer
        with graph.inserting_before(reader.next):
            value = _nan(graph, reader) if position == 0 else index
            chosen = mask
            if position == 0 and alone is not None:
                dtype = reader.meta["val"].dtype
                minus_inf = call_function(
                    graph, aten.scalar_tensor.default, (-math.inf,), {"dtype": dtype}
                )
                value = call_function(graph, aten.where.self, (mask, value, minus_inf))
                chosen = call_function(graph, aten.bitwise_or.Tensor, (mask, alone))
            selected = call_function(graph, aten.where.self, (chosen, value, reader))
        redirect_users(reader, selected)
    return bool(readers)


def _relu_as_maximum(node: torch.fx.Node) -> bool:
    """Replace a float ``relu(x)`` with ``maximum(0, x)``, which OpenVINO computes NaN-preserving.

    A ``relu`` that feeds only quantizes is left as it is (see the module's
    docstring); an integer one becomes ``where(x > 0, x, 0)``.
    """
    x = node.args[0]
    if not isinstance(x, torch.fx.Node):
        return False
    graph = node.graph
    if not _is_float(node):
        # OpenVINO's CPU plugin computes an integer Relu in float32 (1741700296
        # comes back 1741700288); a select moves the values unchanged.
        with graph.inserting_before(node):
            positive = call_function(graph, aten.gt.Scalar, (x, 0))
            zeros = call_function(graph, aten.full_like.default, (x, 0))
            maximum = call_function(graph, aten.where.self, (positive, x, zeros))
        node.replace_all_uses_with(maximum)
        graph.erase_node(node)
        return True
    if node.users and all(op_name(user) in QUANTIZE for user in node.users):
        return False
    with graph.inserting_before(node):
        zero = call_function(
            graph, aten.scalar_tensor.default, (0.0,), {"dtype": node.meta["val"].dtype}
        )
        maximum = call_function(graph, aten.maximum.default, (zero, x))
    node.replace_all_uses_with(maximum)
    graph.erase_node(node)
    return True


def _sign_of_nan_as_zero(node: torch.fx.Node) -> bool:
    """Make a float ``sign(x)`` 0 where ``x`` is NaN, as PyTorch's is (OpenVINO's ``Sign`` gives NaN)."""
    x = node.args[0]
    if not isinstance(x, torch.fx.Node) or not _is_float(node):
        return False
    graph = node.graph
    with graph.inserting_before(node.next):
        nan = call_function(graph, aten.isnan.default, (x,))
        zero = call_function(
            graph, aten.scalar_tensor.default, (0.0,), {"dtype": node.meta["val"].dtype}
        )
        selected = call_function(graph, aten.where.self, (nan, zero, node))
    redirect_users(node, selected)
    return True


def _nan(graph: torch.fx.Graph, like: torch.fx.Node) -> torch.fx.Node:
    dtype = like.meta["val"].dtype
    return call_function(graph, aten.scalar_tensor.default, (float("nan"),), {"dtype": dtype})


_OWN_REWRITES: dict[str, Callable[[torch.fx.Node], bool]] = {
    _RELU: _relu_as_maximum,
    _SIGN: _sign_of_nan_as_zero,
    **dict.fromkeys(_SOFTMAX, _softmax_as_pytorch),
    **dict.fromkeys(_WITH_INDICES | _POOLS, _with_indices),
}
"""The ops rewritten by a function of their own: each returns whether it rewrote the node."""


@declare(
    Stage.REWRITES,
    after=("extremum_and_index_as_reduction_and_arg",),
    why="it makes the reduction and the arg-reduction that max.dim and min.dim become NaN-aware",
)
def nan_through_clamps_and_maxima(graph_module: torch.fx.GraphModule) -> bool:
    """Make float clamps, maxima, ``exp``, reductions, arg-maxima, max pooling and softmaxes return NaN where PyTorch does, and ``sign`` of NaN 0.

    Returns:
        True when an op was rewritten.
    """
    graph = graph_module.graph
    changed = False
    for node in list(graph.nodes):
        name = op_name(node)
        rewrite = _OWN_REWRITES.get(name)
        if rewrite is not None:
            changed |= rewrite(node)
            continue
        if name not in _ELEMENTWISE | _BINARY | _REDUCTIONS | _ARG:
            continue
        x = node.args[0]
        if name in _REDUCTIONS and isinstance(x, torch.fx.Node) and _is_float(node):
            with graph.inserting_before(node.next):
                selected = _extremum_as_pytorch(node, x)
        elif name in _ARG and isinstance(x, torch.fx.Node) and _is_float(x):
            dim = node.args[1] if len(node.args) > 1 else None
            keep = bool(node.args[2]) if len(node.args) > 2 else False
            with graph.inserting_before(node.next):
                mask = _any_nan_over(graph, x, dim, keep)
                selected = call_function(
                    graph, aten.where.self, (mask, _first_nan(graph, x, dim, keep), node)
                )
        else:
            with graph.inserting_before(node.next):
                carried = _propagated(node)
                if carried is None:
                    continue
                selected = call_function(graph, aten.where.self, (carried, _nan(graph, node), node))
        redirect_users(node, selected)
        changed = True
    return changed
