// The ExecuTorch backend that runs delegates on OpenVINO.
//
// init() reads the payload (header plus OpenVINO IR), compiles it for the
// device in the compile specs and creates one infer request per delegate.
// execute() wraps ExecuTorch's input tensors without copying, binds outputs
// with a static shape to ExecuTorch's buffers, and copies outputs whose shape
// can change out of OpenVINO's own buffer after resizing the ExecuTorch tensor.

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/platform/log.h>

#include <cstring>
#include <algorithm>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "compile_options.h"
#include "openvino_api.h"
#include "payload.h"

#ifndef OV_EXECUTORCH_BACKEND_ID
#error "OV_EXECUTORCH_BACKEND_ID must be defined by the build (read from ov_spec)"
#endif

namespace ov_executorch {
namespace {

using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::runtime::ArrayRef;
using executorch::runtime::Backend;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;

// Stands in for the data pointer of a zero-size tensor: OpenVINO refuses null.
alignas(64) uint8_t empty_data[64];

bool to_element_type(ScalarType type, ov_element_type_e* out) {
  switch (type) {
    case ScalarType::Float: *out = F32; return true;
    case ScalarType::Half: *out = F16; return true;
    case ScalarType::BFloat16: *out = BF16; return true;
    case ScalarType::Double: *out = F64; return true;
    case ScalarType::Char: *out = I8; return true;
    case ScalarType::Short: *out = I16; return true;
    case ScalarType::Int: *out = I32; return true;
    case ScalarType::Long: *out = I64; return true;
    case ScalarType::Byte: *out = U8; return true;
    case ScalarType::Bool: *out = BOOLEAN; return true;
    default: return false;
  }
}

const char* element_type_name(ov_element_type_e type) {
  switch (type) {
    case F32: return "f32";
    case F16: return "f16";
    case BF16: return "bf16";
    case F64: return "f64";
    case I8: return "i8";
    case I16: return "i16";
    case I32: return "i32";
    case I64: return "i64";
    case U8: return "u8";
    case BOOLEAN: return "boolean";
    default: return "another type";
  }
}

struct PortInfo {
  ov_element_type_e type = DYNAMIC;
  int64_t rank = -1;  // -1: dynamic rank
  bool dynamic = true;
};

// Everything one delegate owns. Destroying it releases OpenVINO's objects and
// then the payload, which OpenVINO may read until the compiled model is gone.
struct DelegateState {
  DelegateState(const OpenvinoApi* openvino, FreeableBuffer&& payload)
      : api(openvino), processed(std::move(payload)) {}

  const OpenvinoApi* api;
  FreeableBuffer processed;
  ov_tensor_t* weights = nullptr;
  ov_compiled_model_t* compiled = nullptr;
  ov_infer_request_t* request = nullptr;
  std::vector<PortInfo> inputs;
  std::vector<PortInfo> outputs;
  std::vector<int64_t> scalars;  // storage for int, bool and float inputs (8 bytes each)

  ~DelegateState() {
    if (request) api->ov_infer_request_free(request);
    if (compiled) api->ov_compiled_model_free(compiled);
    if (weights) api->ov_tensor_free(weights);
    processed.Free();
  }
};

bool port_info(const OpenvinoApi& api, ov_output_const_port_t* port, PortInfo* info, std::string* error) {
  ov_partial_shape_t shape{};
  ov_status_e status = api.ov_port_get_element_type(port, &info->type);
  if (status == OK) status = api.ov_port_get_partial_shape(port, &shape);
  if (status != OK) {
    *error = api.describe(status);
    return false;
  }
  // Not ov_partial_shape_is_dynamic: the C API counts a rank of 0 and a
  // dimension of 0 as dynamic, so scalars and zero-size outputs would lose
  // their zero-copy binding.
  auto fixed = [](const ov_dimension_t& d) { return d.min == d.max && d.max >= 0; };
  info->rank = fixed(shape.rank) ? shape.rank.max : -1;
  info->dynamic = info->rank < 0;
  for (int64_t i = 0; i < info->rank && !info->dynamic; ++i) {
    info->dynamic = !fixed(shape.dims[i]);
  }
  api.ov_partial_shape_free(&shape);
  return true;
}

Error read_ports(DelegateState& state) {
  const OpenvinoApi& api = *state.api;
  for (bool is_input : {true, false}) {
    size_t count = 0;
    ov_status_e status = is_input ? api.ov_compiled_model_inputs_size(state.compiled, &count)
                                  : api.ov_compiled_model_outputs_size(state.compiled, &count);
    auto& infos = is_input ? state.inputs : state.outputs;
    infos.resize(count);
    for (size_t i = 0; status == OK && i < count; ++i) {
      ov_output_const_port_t* port = nullptr;
      status = is_input ? api.ov_compiled_model_input_by_index(state.compiled, i, &port)
                        : api.ov_compiled_model_output_by_index(state.compiled, i, &port);
      if (status != OK) break;
      std::string error;
      bool ok = port_info(api, port, &infos[i], &error);
      api.ov_output_const_port_free(port);
      if (!ok) {
        ET_LOG(Error, "OpenVINO: cannot read %s %zu of the compiled model: %s",
               is_input ? "input" : "output", i, error.c_str());
        return Error::DelegateInvalidHandle;
      }
    }
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot list the compiled model's %s: %s",
             is_input ? "inputs" : "outputs", api.describe(status).c_str());
      return Error::DelegateInvalidHandle;
    }
  }
  return Error::Ok;
}

// Wraps `data` (not copied) as an OpenVINO tensor of `type` and `sizes`.
ov_status_e wrap(const OpenvinoApi& api, ov_element_type_e type, ArrayRef<SizesType> sizes,
                 void* data, ov_tensor_t** tensor) {
  // Built by hand, not with ov_shape_create, which refuses rank 0.
  std::vector<int64_t> dims(sizes.begin(), sizes.end());
  int64_t placeholder = 0;
  ov_shape_t shape{static_cast<int64_t>(dims.size()), dims.empty() ? &placeholder : dims.data()};
  return api.ov_tensor_create_from_host_ptr(type, shape, data ? data : empty_data, tensor);
}

// ov_core_compile_model is variadic (key, value, ...); the non-variadic form
// is missing from the 2025 releases this backend still supports.
ov_status_e compile(const OpenvinoApi& api, const ov_model_t* model, const CompileOptions& options,
                    ov_compiled_model_t** compiled) {
  auto properties = options.properties();
  const char* device = options.device.c_str();
  ov_core_t* core = openvino_core();
  switch (properties.size()) {
    case 0:
      return api.ov_core_compile_model(core, model, device, 0, compiled);
    case 1:
      return api.ov_core_compile_model(core, model, device, 2, compiled,
                                       properties[0].first.c_str(), properties[0].second.c_str());
    default:
      return api.ov_core_compile_model(core, model, device, 4, compiled,
                                       properties[0].first.c_str(), properties[0].second.c_str(),
                                       properties[1].first.c_str(), properties[1].second.c_str());
  }
}

// What each delegate compiled in this process was compiled with, as OpenVINO
// reports it: "device=CPU INFERENCE_PRECISION_HINT=f32". Read by
// ov_executorch_compiled_delegate() so that tests and users can check that
// the precision asked for was applied.
std::mutex compiled_mutex;
std::vector<std::string> compiled_records;

void record_compiled(const OpenvinoApi& api, const CompileOptions& options,
                     const ov_compiled_model_t* compiled) {
  std::string record = "device=" + options.device;
  char* value = nullptr;
  if (api.ov_compiled_model_get_property(compiled, "INFERENCE_PRECISION_HINT", &value) == OK && value) {
    record += std::string(" INFERENCE_PRECISION_HINT=") + value;
    api.ov_free(value);
  }
  ET_LOG(Debug, "OpenVINO: compiled a delegate with %s", record.c_str());
  std::lock_guard<std::mutex> lock(compiled_mutex);
  compiled_records.push_back(std::move(record));
}

class OpenvinoBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    std::string error;
    if (openvino_api(&error) == nullptr) {
      ET_LOG(Error, "OpenVINO backend is not available: %s", error.c_str());
      return false;
    }
    return true;
  }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> compile_specs) const override {
    (void)context;
    std::string error;
    CompileOptions options;
    if (!parse_compile_options(compile_specs, &options, &error)) {
      ET_LOG(Error, "OpenVINO: bad compile specs: %s", error.c_str());
      return Error::InvalidArgument;
    }
    const OpenvinoApi* api = openvino_api(&error);
    if (api == nullptr) {
      ET_LOG(Error, "OpenVINO backend is not available: %s", error.c_str());
      return Error::NotSupported;
    }
    PayloadView payload;
    if (!parse_payload(processed->data(), processed->size(), &payload, &error)) {
      ET_LOG(Error, "OpenVINO: cannot read the delegate payload: %s", error.c_str());
      return Error::DelegateInvalidCompatibility;
    }

    // The state keeps the payload: OpenVINO reads the weights lazily.
    auto state = std::unique_ptr<DelegateState>(
        new (std::nothrow) DelegateState(api, std::move(*processed)));
    if (!state) {
      ET_LOG(Error, "OpenVINO: out of memory for the delegate state");
      return Error::MemoryAllocationFailed;
    }

    SizesType weights_size = static_cast<SizesType>(payload.weights_size);
    ov_status_e status = wrap(*api, U8, {&weights_size, 1},
                              const_cast<uint8_t*>(payload.weights), &state->weights);
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot wrap %zu weight bytes: %s", payload.weights_size,
             api->describe(status).c_str());
      return Error::DelegateInvalidCompatibility;
    }
    ov_model_t* model = nullptr;
    status = api->ov_core_read_model_from_memory_buffer(openvino_core(), payload.xml,
                                                        payload.xml_size, state->weights, &model);
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot read the model IR of the payload: %s",
             api->describe(status).c_str());
      return Error::DelegateInvalidCompatibility;
    }
    status = compile(*api, model, options, &state->compiled);
    api->ov_model_free(model);
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot compile the model for device '%s': %s",
             options.device.c_str(), api->describe(status).c_str());
      return Error::DelegateInvalidCompatibility;
    }
    record_compiled(*api, options, state->compiled);
    status = api->ov_compiled_model_create_infer_request(state->compiled, &state->request);
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot create an infer request: %s", api->describe(status).c_str());
      return Error::DelegateInvalidHandle;
    }
    Error ports = read_ports(*state);
    if (ports != Error::Ok) return ports;
    state->scalars.resize(state->inputs.size());
    return state.release();
  }

  Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                Span<EValue*> args) const override {
    (void)context;
    auto& state = *static_cast<DelegateState*>(handle);
    const size_t num_inputs = state.inputs.size();
    const size_t num_outputs = state.outputs.size();
    if (args.size() != num_inputs + num_outputs) {
      ET_LOG(Error, "OpenVINO: the delegate takes %zu inputs and %zu outputs but was called with %zu arguments",
             num_inputs, num_outputs, args.size());
      return Error::InvalidArgument;
    }
    for (size_t i = 0; i < num_inputs; ++i) {
      Error error = bind_input(state, i, *args[i]);
      if (error != Error::Ok) return error;
    }
    for (size_t i = 0; i < num_outputs; ++i) {
      Error error = bind_output(state, i, *args[num_inputs + i]);
      if (error != Error::Ok) return error;
    }
    ov_status_e status = state.api->ov_infer_request_infer(state.request);
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: inference failed: %s", state.api->describe(status).c_str());
      return Error::InvalidState;
    }
    for (size_t i = 0; i < num_outputs; ++i) {
      EValue& value = *args[num_inputs + i];
      Error error = Error::Ok;
      if (!value.isTensor()) {
        error = copy_scalar_output(state, i, value);
      } else if (state.outputs[i].dynamic) {
        error = copy_dynamic_output(state, i, value.toTensor());
      }
      if (error != Error::Ok) return error;
    }
    return Error::Ok;
  }

  void destroy(DelegateHandle* handle) const override {
    delete static_cast<DelegateState*>(handle);
  }

 private:
  static Error check_tensor(const PortInfo& port, const Tensor& tensor, const char* kind,
                            size_t index, ov_element_type_e* type) {
    if (!to_element_type(tensor.scalar_type(), type) || *type != port.type) {
      ET_LOG(Error, "OpenVINO: delegate %s %zu has dtype %s; the compiled model expects %s",
             kind, index, executorch::runtime::toString(tensor.scalar_type()),
             element_type_name(port.type));
      return Error::InvalidArgument;
    }
    if (port.rank >= 0 && port.rank != tensor.dim()) {
      ET_LOG(Error, "OpenVINO: delegate %s %zu has rank %zd; the compiled model expects rank %lld",
             kind, index, static_cast<ssize_t>(tensor.dim()), static_cast<long long>(port.rank));
      return Error::InvalidArgument;
    }
    return Error::Ok;
  }

  static Error bind_input(DelegateState& state, size_t index, EValue& value) {
    const OpenvinoApi& api = *state.api;
    const PortInfo& port = state.inputs[index];
    ov_tensor_t* tensor = nullptr;
    ov_status_e status;
    if (value.isTensor()) {
      const Tensor& input = value.toTensor();
      ov_element_type_e type;
      Error error = check_tensor(port, input, "input", index, &type);
      if (error != Error::Ok) return error;
      status = wrap(api, type, input.sizes(), const_cast<void*>(input.const_data_ptr()), &tensor);
    } else if (value.isInt() || value.isBool() || value.isDouble()) {
      // Scalars reach the model as 0-d tensors of the parameter's type.
      void* slot = &state.scalars[index];
      bool typed = true;
      if (port.type == I64 && value.isInt()) {
        state.scalars[index] = value.toInt();
      } else if (port.type == BOOLEAN && value.isBool()) {
        *static_cast<bool*>(slot) = value.toBool();
      } else if (port.type == F32 && value.isDouble()) {
        *static_cast<float*>(slot) = static_cast<float>(value.toDouble());
      } else if (port.type == F64 && value.isDouble()) {
        *static_cast<double*>(slot) = value.toDouble();
      } else {
        typed = false;
      }
      if (!typed) {
        ET_LOG(Error, "OpenVINO: delegate input %zu is a scalar (tag %d) but the compiled model expects %s",
               index, static_cast<int>(value.tag), element_type_name(port.type));
        return Error::InvalidArgument;
      }
      // The model takes a scalar as shape [] or [1] (ov_convert gives ints [1]).
      SizesType one = 1;
      ArrayRef<SizesType> sizes = port.rank == 1 ? ArrayRef<SizesType>(&one, 1) : ArrayRef<SizesType>();
      status = wrap(api, port.type, sizes, slot, &tensor);
    } else {
      ET_LOG(Error, "OpenVINO: delegate input %zu is neither a tensor nor a scalar (tag %d)", index,
             static_cast<int>(value.tag));
      return Error::InvalidArgument;
    }
    if (status == OK) status = api.ov_infer_request_set_input_tensor_by_index(state.request, index, tensor);
    if (tensor) api.ov_tensor_free(tensor);
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot bind delegate input %zu: %s", index, api.describe(status).c_str());
      return Error::InvalidArgument;
    }
    return Error::Ok;
  }

  static Error bind_output(DelegateState& state, size_t index, EValue& value) {
    if (value.isInt() || value.isDouble() || value.isBool()) {
      return Error::Ok;  // a scalar (a SymInt the CPU part reads) is written after inference
    }
    if (!value.isTensor()) {
      ET_LOG(Error, "OpenVINO: delegate output %zu is neither a tensor nor a scalar (tag %d)",
             index, static_cast<int>(value.tag));
      return Error::InvalidArgument;
    }
    const PortInfo& port = state.outputs[index];
    Tensor& output = value.toTensor();
    ov_element_type_e type;
    Error error = check_tensor(port, output, "output", index, &type);
    if (error != Error::Ok || port.dynamic) return error;  // dynamic ones are copied after inference
    const OpenvinoApi& api = *state.api;
    ov_tensor_t* tensor = nullptr;
    ov_status_e status = wrap(api, type, output.sizes(), output.mutable_data_ptr(), &tensor);
    if (status == OK) status = api.ov_infer_request_set_output_tensor_by_index(state.request, index, tensor);
    if (tensor) api.ov_tensor_free(tensor);
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot bind delegate output %zu to ExecuTorch's buffer: %s", index,
             api.describe(status).c_str());
      return Error::InvalidArgument;
    }
    return Error::Ok;
  }

  // Writes a one-element output into the Int, Double or Bool value ExecuTorch expects there.
  static Error copy_scalar_output(DelegateState& state, size_t index, EValue& value) {
    const OpenvinoApi& api = *state.api;
    const PortInfo& port = state.outputs[index];
    ov_tensor_t* tensor = nullptr;
    size_t count = 0;
    void* data = nullptr;
    ov_status_e status = api.ov_infer_request_get_output_tensor_by_index(state.request, index, &tensor);
    if (status == OK) status = api.ov_tensor_get_size(tensor, &count);
    if (status == OK) status = api.ov_tensor_data(tensor, &data);
    Error result = Error::Ok;
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot read delegate output %zu: %s", index, api.describe(status).c_str());
      result = Error::InvalidState;
    } else if (count != 1) {
      ET_LOG(Error, "OpenVINO: delegate output %zu is a scalar but the model wrote %zu elements", index, count);
      result = Error::InvalidArgument;
    } else if (value.isInt() && port.type == I64) {
      value = EValue(*static_cast<const int64_t*>(data));
    } else if (value.isBool() && port.type == BOOLEAN) {
      value = EValue(*static_cast<const bool*>(data));
    } else if (value.isDouble() && (port.type == F32 || port.type == F64)) {
      value = EValue(port.type == F32 ? static_cast<double>(*static_cast<const float*>(data))
                                      : *static_cast<const double*>(data));
    } else {
      ET_LOG(Error, "OpenVINO: delegate output %zu is a scalar (tag %d) but the model writes %s",
             index, static_cast<int>(value.tag), element_type_name(port.type));
      result = Error::InvalidArgument;
    }
    if (tensor) api.ov_tensor_free(tensor);
    return result;
  }

  static Error copy_dynamic_output(DelegateState& state, size_t index, Tensor& output) {
    const OpenvinoApi& api = *state.api;
    ov_tensor_t* tensor = nullptr;
    ov_shape_t shape{};
    void* data = nullptr;
    size_t bytes = 0;
    ov_status_e status = api.ov_infer_request_get_output_tensor_by_index(state.request, index, &tensor);
    if (status == OK) status = api.ov_tensor_get_shape(tensor, &shape);
    if (status == OK) status = api.ov_tensor_get_byte_size(tensor, &bytes);
    if (status == OK) status = api.ov_tensor_data(tensor, &data);
    Error result = Error::Ok;
    if (status != OK) {
      ET_LOG(Error, "OpenVINO: cannot read delegate output %zu: %s", index, api.describe(status).c_str());
      result = Error::InvalidState;
    } else {
      std::vector<SizesType> sizes(shape.dims, shape.dims + shape.rank);
      Error resized = executorch::runtime::resize_tensor(output, {sizes.data(), sizes.size()});
      if (resized != Error::Ok || output.nbytes() != bytes) {
        ET_LOG(Error, "OpenVINO: cannot resize delegate output %zu to OpenVINO's shape of rank %lld "
               "(%zu bytes); ExecuTorch planned %zu bytes for it", index,
               static_cast<long long>(shape.rank), bytes, static_cast<size_t>(output.nbytes()));
        result = Error::InvalidArgument;
      } else if (bytes > 0) {
        std::memcpy(output.mutable_data_ptr(), data, bytes);
      }
    }
    if (shape.dims) api.ov_shape_free(&shape);
    if (tensor) api.ov_tensor_free(tensor);
    return result;
  }
};

OpenvinoBackend backend;
const Backend registration{OV_EXECUTORCH_BACKEND_ID, &backend};
const Error registered = [] {
  Error error = executorch::runtime::register_backend(registration);
  if (error != Error::Ok) {
    ET_LOG(Error, "OpenVINO: cannot register the backend as '%s' (error %d); is the name taken?",
           OV_EXECUTORCH_BACKEND_ID, static_cast<int>(error));
  }
  return error;
}();

}  // namespace
}  // namespace ov_executorch

// Returns why OpenVINO's runtime cannot be used in this process, or an empty
// string when it can. Loads OpenVINO's C library on first use.
extern "C" __attribute__((visibility("default"))) const char* ov_executorch_unavailable_reason() {
  static std::string reason;
  static std::once_flag once;
  std::call_once(once, [] {
    if (ov_executorch::openvino_api(&reason) != nullptr) reason.clear();
  });
  return reason.c_str();
}

// Copies the record of the index-th delegate compiled in this process into
// buffer (NUL-terminated, truncated to size) and returns its full length, or
// -1 when fewer delegates were compiled.
extern "C" __attribute__((visibility("default"))) long ov_executorch_compiled_delegate(
    size_t index, char* buffer, size_t size) {
  using namespace ov_executorch;
  std::lock_guard<std::mutex> lock(compiled_mutex);
  if (index >= compiled_records.size()) return -1;
  const std::string& record = compiled_records[index];
  if (buffer && size > 0) {
    size_t n = std::min(size - 1, record.size());
    std::memcpy(buffer, record.data(), n);
    buffer[n] = '\0';
  }
  return static_cast<long>(record.size());
}
