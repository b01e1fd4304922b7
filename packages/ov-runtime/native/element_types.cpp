#include "element_types.h"

#include "c_api.h"

namespace ov_executorch {

using executorch::aten::ScalarType;

bool to_element_type(ScalarType type, ov_element_type_e* out) {
  switch (type) {
    case ScalarType::Byte: *out = U8; return true;
    case ScalarType::Char: *out = I8; return true;
    case ScalarType::Short: *out = I16; return true;
    case ScalarType::Int: *out = I32; return true;
    case ScalarType::Long: *out = I64; return true;
    case ScalarType::Half: *out = F16; return true;
    case ScalarType::Float: *out = F32; return true;
    case ScalarType::Bool: *out = BOOLEAN; return true;
    case ScalarType::BFloat16: *out = BF16; return true;
    default: return false;
  }
}

const char* element_type_name(ov_element_type_e type) {
  switch (type) {
    case U8: return "u8";
    case I8: return "i8";
    case I16: return "i16";
    case I32: return "i32";
    case I64: return "i64";
    case F16: return "f16";
    case F32: return "f32";
    case F64: return "f64";
    case BOOLEAN: return "boolean";
    case BF16: return "bf16";
    default: return "another type";
  }
}

}  // namespace ov_executorch

const char* ov_executorch_element_type(int scalar_type) {
  ov_element_type_e type;
  auto dtype = static_cast<executorch::aten::ScalarType>(scalar_type);
  return ov_executorch::to_element_type(dtype, &type) ? ov_executorch::element_type_name(type) : "";
}
