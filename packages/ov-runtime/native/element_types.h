// ExecuTorch scalar types and OpenVINO element types.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <openvino/c/openvino.h>

namespace ov_executorch {

// OpenVINO's element type for an ExecuTorch dtype; false for dtypes the
// backend does not take (complex, quantized, bits).
bool to_element_type(executorch::aten::ScalarType type, ov_element_type_e* out);

// A short name for log messages ("f32", "i64", "boolean").
const char* element_type_name(ov_element_type_e type);

}  // namespace ov_executorch
