// Marks the Divide nodes of a model read from IR as OpenVINO's PyTorch frontend
// marks them when it converts a graph, so that the CPU plugin divides instead of
// multiplying by the reciprocal.
//
// The frontend sets the runtime attribute "nonconvertable_divide" on each Divide,
// and OpenVINO's ConvertDivide pass (run by the CPU plugin on x86) rewrites every
// Divide without it into a * b^-1: one more rounding, and inf where 1 / b
// overflows (a subnormal b). The attribute is not written to IR, and OpenVINO's C
// API cannot set it, so this small library, linked with OpenVINO's C++ library,
// does it for the backend (which loads it next to OpenVINO's C library).

#include <memory>

#include <openvino/core/model.hpp>
#include <openvino/core/runtime_attribute.hpp>
#include <openvino/op/constant.hpp>
#include <openvino/op/convert.hpp>
#include <openvino/op/divide.hpp>
#include <openvino/op/util/shape_of_base.hpp>
#include <openvino/op/util/binary_elementwise_arithmetic.hpp>
#include <openvino/op/util/reduction_base.hpp>
#include <openvino/op/util/unary_elementwise_arithmetic.hpp>

// The C API's model handle, as OpenVINO's C bindings define it
// (src/bindings/c/src/common.h): the C++ model it wraps.
struct ov_model {
  std::shared_ptr<ov::Model> object;
};

namespace {

// OpenVINO's own attribute (transformations/rt_info/nonconvertible_divide.hpp, not
// shipped in the wheel): the passes test only for its key, name and version.
class NonconvertibleDivide : public ov::RuntimeAttribute {
 public:
  OPENVINO_RTTI("nonconvertable_divide", "0", ov::RuntimeAttribute);
  bool is_copyable() const override { return false; }
};

// Elementwise steps searched back from a dividend for a reduction.
constexpr int kFusableDepth = 8;
// Steps searched back from a divisor for what it is computed from.
constexpr int kFoldableDepth = 16;

// Whether `value` is a reduction, or elementwise arithmetic or a Convert of one,
// which the CPU plugin fuses with a Divide of it and a constant after it. OpenVINO 2026.4.1's
// CPU plugin computes such a fused Divide wrong: x.sum(-1) / 2 of a (5, 4, 3)
// tensor came out wrong in its last rows through OpenVINO alone too, and so did
// torch.var here (whose Divide the frontend leaves unmarked) once marked; with
// the reduction as the divisor, rsqrt(x.sum()) (1 / Sqrt) came out as its
// square root, the Divide dropped, and so did rsqrt(x.prod()) of float16, whose
// rsqrt runs in float32 after a Convert. Left unmarked, the Divide becomes a product
// with the reciprocal, which the plugin fuses right.
bool reduced(const ov::Output<ov::Node>& value, int depth) {
  const auto node = value.get_node_shared_ptr();
  if (ov::as_type_ptr<ov::op::util::ReductionBase>(node)) return true;
  const bool elementwise = ov::as_type_ptr<ov::op::util::BinaryElementwiseArithmetic>(node) ||
                           ov::as_type_ptr<ov::op::util::UnaryElementwiseArithmetic>(node) ||
                           ov::as_type_ptr<ov::op::v0::Convert>(node);
  if (!elementwise || depth == 0) return false;
  for (const auto& input : node->input_values()) {
    if (reduced(input, depth - 1)) return true;
  }
  return false;
}

// Whether `value` is known before inference: a Constant, the ShapeOf of a static
// shape, or computed from those alone (the plugin folds it into a constant).
bool constant(const ov::Output<ov::Node>& value, int depth) {
  const auto node = value.get_node_shared_ptr();
  if (ov::as_type_ptr<ov::op::v0::Constant>(node)) return true;
  if (ov::as_type_ptr<ov::op::util::ShapeOfBase>(node)) {
    return node->get_input_partial_shape(0).is_static();
  }
  if (depth == 0 || node->get_input_size() == 0) return false;
  for (const auto& input : node->input_values()) {
    if (!constant(input, depth - 1)) return false;
  }
  return true;
}

}  // namespace

// The number of Divide nodes marked, or -1 for a null model. A Divide of a
// reduction and a constant is left to OpenVINO's default (see reduced()).
extern "C" __attribute__((visibility("default"))) int ov_executorch_keep_exact_divisions(
    ov_model* model) {
  if (model == nullptr || !model->object) return -1;
  int marked = 0;
  for (const auto& node : model->object->get_ops()) {
    if (!ov::as_type_ptr<ov::op::v1::Divide>(node)) continue;
    const auto dividend = node->input_value(0);
    const auto divisor = node->input_value(1);
    if ((reduced(dividend, kFusableDepth) && constant(divisor, kFoldableDepth)) ||
        (constant(dividend, kFoldableDepth) && reduced(divisor, kFusableDepth))) {
      continue;  // fused into the reduction (see reduced())
    }
    node->get_rt_info()[NonconvertibleDivide::get_type_info_static()] = NonconvertibleDivide{};
    ++marked;
  }
  return marked;
}
