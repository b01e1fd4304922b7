// OpenVINO's C API, loaded at run time with dlopen.
//
// The backend library loads and registers even where OpenVINO is missing; it
// then reports is_available() == false with the reason, instead of failing to
// load. Each entry has the exact type of the C API function it stands for.
#pragma once

#include <openvino/c/openvino.h>

#include <string>

namespace ov_executorch {

struct OpenvinoApi {
#define OV_EXECUTORCH_API_FUNCTIONS(X)          \
  X(ov_core_create)                             \
  X(ov_core_free)                               \
  X(ov_core_read_model_from_memory_buffer)      \
  X(ov_core_compile_model)                      \
  X(ov_core_import_model)                       \
  X(ov_core_set_property)                       \
  X(ov_core_get_property)                       \
  X(ov_get_openvino_version)                    \
  X(ov_version_free)                            \
  X(ov_core_get_available_devices)              \
  X(ov_available_devices_free)                  \
  X(ov_model_free)                              \
  X(ov_compiled_model_inputs_size)              \
  X(ov_compiled_model_outputs_size)             \
  X(ov_compiled_model_input_by_index)           \
  X(ov_compiled_model_output_by_index)          \
  X(ov_compiled_model_create_infer_request)     \
  X(ov_compiled_model_get_property)             \
  X(ov_compiled_model_free)                     \
  X(ov_output_const_port_free)                  \
  X(ov_port_get_partial_shape)                  \
  X(ov_port_get_element_type)                   \
  X(ov_partial_shape_free)                      \
  X(ov_infer_request_set_input_tensor_by_index) \
  X(ov_infer_request_set_output_tensor_by_index)\
  X(ov_infer_request_get_output_tensor_by_index)\
  X(ov_infer_request_infer)                     \
  X(ov_infer_request_get_profiling_info)        \
  X(ov_profiling_info_list_free)                \
  X(ov_infer_request_free)                      \
  X(ov_tensor_create_from_host_ptr)             \
  X(ov_tensor_get_shape)                        \
  X(ov_tensor_get_element_type)                 \
  X(ov_tensor_get_byte_size)                    \
  X(ov_tensor_get_size)                         \
  X(ov_tensor_data)                             \
  X(ov_tensor_free)                             \
  X(ov_shape_free)                              \
  X(ov_get_error_info)                          \
  X(ov_get_last_err_msg)                        \
  X(ov_free)

#define OV_EXECUTORCH_DECLARE(name) decltype(&::name) name = nullptr;
  OV_EXECUTORCH_API_FUNCTIONS(OV_EXECUTORCH_DECLARE)
#undef OV_EXECUTORCH_DECLARE

  // Text for a failed call: the status name and OpenVINO's last message.
  std::string describe(ov_status_e status) const;

  // Marks each Divide of a model read from IR as OpenVINO's PyTorch frontend
  // does, so that the CPU plugin divides rather than multiplies by the
  // reciprocal (native/divisions/keep_exact_divisions.cpp); returns how many.
  // Null where that library could not be loaded with the OpenVINO loaded here.
  int (*keep_exact_divisions)(ov_model_t* model) = nullptr;
};

// The process-wide API and core, loaded on first use. Returns nullptr and
// sets *error when OpenVINO's C library or its core cannot be loaded.
// The library is OV_EXECUTORCH_OPENVINO_C_LIB when set, else the one in the
// openvino wheel beside this library's package, else libopenvino_c.so from
// the loader's search path.
const OpenvinoApi* openvino_api(std::string* error);
ov_core_t* openvino_core();

}  // namespace ov_executorch
