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
#include <openvino/op/divide.hpp>

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

}  // namespace

// The number of Divide nodes marked, or -1 for a null model.
extern "C" __attribute__((visibility("default"))) int ov_executorch_keep_exact_divisions(
    ov_model* model) {
  if (model == nullptr || !model->object) return -1;
  int marked = 0;
  for (const auto& node : model->object->get_ops()) {
    if (ov::as_type_ptr<ov::op::v1::Divide>(node)) {
      node->get_rt_info()[NonconvertibleDivide::get_type_info_static()] = NonconvertibleDivide{};
      ++marked;
    }
  }
  return marked;
}
