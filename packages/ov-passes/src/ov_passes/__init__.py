"""torch.fx graph passes that prepare a partition for OpenVINO's PyTorch frontend."""

from ov_passes.avg_pool_divisors import avg_pool_divisors_as_pytorch
from ov_passes.batched_weights import broadcast_weights_as_matmul
from ov_passes.diagonals import diagonals_as_gathers
from ov_passes.empty_reductions import averages_of_nothing_as_nan
from ov_passes.empty_results import empty_results_as_constants
from ov_passes.first_extremum_index import extremum_and_index_as_reduction_and_arg
from ov_passes.infinite_gelu import gelu_of_infinity_as_pytorch
from ov_passes.integer_accumulation import cast_integer_accumulations_to_int64
from ov_passes.integer_comparisons import exact_integer_comparisons
from ov_passes.integer_floor_division import integer_floor_division_by_truncation
from ov_passes.logical_ops import (
    bool_selects_as_bitwise,
    logical_ops_as_bitwise,
    truth_as_comparisons,
)
from ov_passes.nan_comparisons import greater_as_less
from ov_passes.nan_propagation import nan_through_clamps_and_maxima
from ov_passes.no_op_aliases import drop_no_op_aliases
from ov_passes.pipeline import GraphPass, call_function, op_name, replace_node, run_passes
from ov_passes.pool_arguments import pool_arguments_per_dim
from ov_passes.quantization import (
    fake_quantize_as_pairs,
    unpaired_quantization_as_arithmetic,
)
from ov_passes.reduction_dims import reductions_of_scalars_as_copies, reductions_over_every_dim
from ov_passes.scalar_index import index_select_of_a_scalar_index
from ov_passes.small_arguments import small_arguments_by_series
from ov_passes.symbolic_slice_bounds import slice_bounds_as_tensors
from ov_passes.variance_correction import default_variance_correction
from ov_passes.view_sizes import view_sizes_from_metadata
from ov_passes.weight_compression import (
    affine_dequantization_as_arithmetic,
    output_scales_onto_weights,
)
from ov_passes.widened_kernels import narrow_kernels_widened

DEFAULT_PASSES: tuple[GraphPass, ...] = (
    fake_quantize_as_pairs,
    unpaired_quantization_as_arithmetic,
    affine_dequantization_as_arithmetic,
    output_scales_onto_weights,
    broadcast_weights_as_matmul,
    pool_arguments_per_dim,
    empty_results_as_constants,
    cast_integer_accumulations_to_int64,
    reductions_of_scalars_as_copies,
    logical_ops_as_bitwise,
    truth_as_comparisons,
    bool_selects_as_bitwise,
    integer_floor_division_by_truncation,
    exact_integer_comparisons,
    small_arguments_by_series,
    gelu_of_infinity_as_pytorch,
    extremum_and_index_as_reduction_and_arg,
    nan_through_clamps_and_maxima,
    narrow_kernels_widened,
    greater_as_less,
    slice_bounds_as_tensors,
    view_sizes_from_metadata,
    reductions_over_every_dim,
    default_variance_correction,
    averages_of_nothing_as_nan,
    index_select_of_a_scalar_index,
    diagonals_as_gathers,
    avg_pool_divisors_as_pytorch,
    drop_no_op_aliases,
)
"""The passes preprocess runs on every partition, in this order.

The floor-division rewrite and the logical ops' truth values compare
integers, so they run before ``exact_integer_comparisons``, which makes those comparisons exact: it
sees their dtypes because every node a pass creates carries its
``meta["val"]`` (:func:`call_function`). ``greater_as_less`` touches float
comparisons only, and the ``ne`` that ``truth_as_comparisons`` builds
needs none, and ``gelu_of_infinity_as_pytorch`` builds only an equality. ``max.dim`` and ``min.dim`` become a reduction and an
arg-reduction before the NaN pass, which then makes each of them NaN-aware. The quantization rewrites run first: fake-quant ops become
quantize/dequantize pairs, which the next pass leaves to the frontend, and the
float arithmetic it builds for unpaired nodes (and the weight-compression
passes for weight-only quantization) is what the others expect. Pooling arguments are
spelled out per dim before any pass reads or copies them. Empty results
become constants next, so no later pass builds on a node OpenVINO would
compute on empty tensors.
``drop_no_op_aliases`` runs last, once views have their sizes. The other passes rewrite nodes no other pass creates or reads."""

__all__ = [
    "DEFAULT_PASSES",
    "GraphPass",
    "affine_dequantization_as_arithmetic",
    "averages_of_nothing_as_nan",
    "avg_pool_divisors_as_pytorch",
    "bool_selects_as_bitwise",
    "broadcast_weights_as_matmul",
    "call_function",
    "cast_integer_accumulations_to_int64",
    "default_variance_correction",
    "diagonals_as_gathers",
    "drop_no_op_aliases",
    "empty_results_as_constants",
    "exact_integer_comparisons",
    "extremum_and_index_as_reduction_and_arg",
    "fake_quantize_as_pairs",
    "gelu_of_infinity_as_pytorch",
    "greater_as_less",
    "index_select_of_a_scalar_index",
    "integer_floor_division_by_truncation",
    "logical_ops_as_bitwise",
    "nan_through_clamps_and_maxima",
    "narrow_kernels_widened",
    "op_name",
    "output_scales_onto_weights",
    "pool_arguments_per_dim",
    "reductions_of_scalars_as_copies",
    "reductions_over_every_dim",
    "replace_node",
    "run_passes",
    "slice_bounds_as_tensors",
    "small_arguments_by_series",
    "truth_as_comparisons",
    "unpaired_quantization_as_arithmetic",
    "view_sizes_from_metadata",
]
