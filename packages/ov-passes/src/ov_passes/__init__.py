"""torch.fx graph passes that prepare a partition for OpenVINO's PyTorch frontend."""

from ov_passes.affine_quantization import affine_quantization_as_arithmetic
from ov_passes.avg_pool_divisors import avg_pool_divisors_as_pytorch
from ov_passes.batched_weights import broadcast_weights_as_matmul
from ov_passes.declarations import (
    Declaration,
    PassOrderError,
    Rewrites,
    Stage,
    check_order,
    declaration,
    declare,
)
from ov_passes.diagonals import diagonals_as_gathers
from ov_passes.empty_reductions import averages_of_nothing_as_nan
from ov_passes.empty_results import empty_results_as_constants
from ov_passes.exp_near_overflow import exp_near_overflow_as_pytorch
from ov_passes.first_extremum_index import extremum_and_index_as_reduction_and_arg
from ov_passes.infinite_gelu import gelu_of_infinity_as_pytorch
from ov_passes.integer_accumulation import cast_integer_accumulations_to_int64
from ov_passes.integer_comparisons import exact_integer_comparisons
from ov_passes.integer_floor_division import integer_floor_division_by_truncation
from ov_passes.logical_ops import (
    bool_selects_as_bitwise,
    int32_selects_as_bitwise,
    logical_ops_as_bitwise,
    select_values_in_result_dtype,
    truth_as_comparisons,
)
from ov_passes.lowest_windows import max_pool_windows_at_the_lowest_value
from ov_passes.nan_comparisons import greater_as_less
from ov_passes.nan_propagation import nan_through_clamps_and_maxima
from ov_passes.no_op_aliases import drop_no_op_aliases
from ov_passes.padding_windows import max_pool_windows_of_padding
from ov_passes.pipeline import GraphPass, call_function, replace_node, run_passes
from ov_passes.pool_arguments import pool_arguments_per_dim
from ov_passes.quantization import (
    fake_quantize_as_pairs,
    unpaired_quantization_as_arithmetic,
)
from ov_passes.reduction_dims import reductions_of_scalars_as_copies, reductions_over_every_dim
from ov_passes.scalar_index import index_select_of_a_scalar_index
from ov_passes.signed_negation import negation_keeping_zero_signs
from ov_passes.small_arguments import small_arguments_by_series
from ov_passes.symbolic_slice_bounds import slice_bounds_as_tensors
from ov_passes.variance_correction import default_variance_correction
from ov_passes.view_sizes import view_sizes_from_metadata
from ov_passes.weight_compression import output_scales_onto_weights
from ov_passes.widened_kernels import half_math_in_float32, narrow_kernels_widened
from ov_spec import op_name

DEFAULT_PASSES: tuple[GraphPass, ...] = (
    fake_quantize_as_pairs,
    unpaired_quantization_as_arithmetic,
    affine_quantization_as_arithmetic,
    output_scales_onto_weights,
    broadcast_weights_as_matmul,
    pool_arguments_per_dim,
    empty_results_as_constants,
    cast_integer_accumulations_to_int64,
    reductions_of_scalars_as_copies,
    logical_ops_as_bitwise,
    truth_as_comparisons,
    select_values_in_result_dtype,
    bool_selects_as_bitwise,
    int32_selects_as_bitwise,
    integer_floor_division_by_truncation,
    exact_integer_comparisons,
    half_math_in_float32,
    small_arguments_by_series,
    gelu_of_infinity_as_pytorch,
    exp_near_overflow_as_pytorch,
    negation_keeping_zero_signs,
    extremum_and_index_as_reduction_and_arg,
    max_pool_windows_at_the_lowest_value,
    nan_through_clamps_and_maxima,
    max_pool_windows_of_padding,
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

Each pass declares its stage and the passes it must follow, with the reason
(:func:`declare`, next to its code); :func:`check_order` enforces them here, on
import. A pass no rule ties rewrites nodes no other pass creates or reads."""

check_order(DEFAULT_PASSES)

REWRITES = Rewrites.of(DEFAULT_PASSES)
"""The ops ``DEFAULT_PASSES`` rewrite into ops OpenVINO's frontend converts, and their limits:
what the partitioner reads to know what preprocess makes convertible."""

__all__ = [
    "DEFAULT_PASSES",
    "REWRITES",
    "Declaration",
    "GraphPass",
    "PassOrderError",
    "Rewrites",
    "Stage",
    "affine_quantization_as_arithmetic",
    "averages_of_nothing_as_nan",
    "avg_pool_divisors_as_pytorch",
    "bool_selects_as_bitwise",
    "broadcast_weights_as_matmul",
    "call_function",
    "cast_integer_accumulations_to_int64",
    "check_order",
    "declaration",
    "declare",
    "default_variance_correction",
    "diagonals_as_gathers",
    "drop_no_op_aliases",
    "empty_results_as_constants",
    "exact_integer_comparisons",
    "exp_near_overflow_as_pytorch",
    "extremum_and_index_as_reduction_and_arg",
    "fake_quantize_as_pairs",
    "gelu_of_infinity_as_pytorch",
    "greater_as_less",
    "half_math_in_float32",
    "index_select_of_a_scalar_index",
    "int32_selects_as_bitwise",
    "integer_floor_division_by_truncation",
    "logical_ops_as_bitwise",
    "max_pool_windows_at_the_lowest_value",
    "max_pool_windows_of_padding",
    "nan_through_clamps_and_maxima",
    "narrow_kernels_widened",
    "negation_keeping_zero_signs",
    "op_name",
    "output_scales_onto_weights",
    "pool_arguments_per_dim",
    "reductions_of_scalars_as_copies",
    "reductions_over_every_dim",
    "replace_node",
    "run_passes",
    "select_values_in_result_dtype",
    "slice_bounds_as_tensors",
    "small_arguments_by_series",
    "truth_as_comparisons",
    "unpaired_quantization_as_arithmetic",
    "view_sizes_from_metadata",
]
