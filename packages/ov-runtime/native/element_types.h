// ExecuTorch scalar types and OpenVINO element types: the one place the
// native side maps them. It agrees with ov_spec.DELEGATE_DTYPES (a test
// compares the two through ov_executorch_element_type in c_api.h).
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <openvino/c/openvino.h>

namespace ov_executorch {

// OpenVINO's element type for an ExecuTorch dtype; false for dtypes a
// delegate does not take (float64, complex, quantized, bits).
bool to_element_type(executorch::aten::ScalarType type, ov_element_type_e* out);

// OpenVINO's name of an element type ("f32", "i64", "boolean").
const char* element_type_name(ov_element_type_e type);

}  // namespace ov_executorch
