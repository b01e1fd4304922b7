#include "delegate.h"

#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/platform/log.h>

#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "compiled_records.h"
#include "errors.h"
#include "element_types.h"

namespace ov_executorch {

using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

// Stands in for the data pointer of a zero-size tensor: OpenVINO refuses null.
alignas(64) uint8_t empty_data[64];

// Wraps `data` (not copied) as an OpenVINO tensor of `type` and `dims`.
ov_status_e wrap(const OpenvinoApi& api, ov_element_type_e type, std::vector<int64_t> dims,
                 void* data, ov_tensor_t** tensor) {
  // Built by hand, not with ov_shape_create, which refuses rank 0.
  int64_t placeholder = 0;
  ov_shape_t shape{static_cast<int64_t>(dims.size()), dims.empty() ? &placeholder : dims.data()};
  return api.ov_tensor_create_from_host_ptr(type, shape, data ? data : empty_data, tensor);
}

// The tensor's sizes in memory order: sizes permuted by its dim order, which
// is how ov_convert typed the model's parameters and results (NHWC for a
// channels_last NCHW tensor).
std::vector<int64_t> physical_dims(const Tensor& tensor) {
  std::vector<int64_t> dims(tensor.dim());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = tensor.size(tensor.dim_order()[i]);
  return dims;
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

void record(const OpenvinoApi& api, const CompileOptions& options, const ov_compiled_model_t* compiled) {
  std::string text = "device=" + options.device;
  char* value = nullptr;
  if (api.ov_compiled_model_get_property(compiled, "INFERENCE_PRECISION_HINT", &value) == OK && value) {
    text += std::string(" INFERENCE_PRECISION_HINT=") + value;
    api.ov_free(value);
  }
  record_compiled(std::move(text));
}

bool port_info(const OpenvinoApi& api, const ov_output_const_port_t* port, PortInfo* info,
               std::string* error) {
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

Error check_tensor(const PortInfo& port, const Tensor& tensor, const char* kind, size_t index,
                   ov_element_type_e* type) {
  if (!to_element_type(tensor.scalar_type(), type) || *type != port.type) {
    log_error("delegate %s %zu has dtype %s; the compiled model expects %s", kind,
           index, executorch::runtime::toString(tensor.scalar_type()), element_type_name(port.type));
    return Error::InvalidArgument;
  }
  if (port.rank >= 0 && port.rank != tensor.dim()) {
    log_error("delegate %s %zu has rank %zd; the compiled model expects rank %lld",
           kind, index, static_cast<ssize_t>(tensor.dim()), static_cast<long long>(port.rank));
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

}  // namespace

Delegate::Delegate(const OpenvinoApi& api, FreeableBuffer&& processed)
    : api_(api), processed_(std::move(processed)) {}

Delegate::~Delegate() {
  if (request_) api_.ov_infer_request_free(request_);
  if (compiled_) api_.ov_compiled_model_free(compiled_);
  if (weights_) api_.ov_tensor_free(weights_);
  processed_.Free();
}

Result<Delegate*> Delegate::create(const OpenvinoApi& api, FreeableBuffer&& processed,
                                   const PayloadView& payload, const CompileOptions& options) {
  std::unique_ptr<Delegate> delegate(new (std::nothrow) Delegate(api, std::move(processed)));
  if (!delegate) {
    log_error("out of memory for the delegate state");
    return Error::MemoryAllocationFailed;
  }
  ov_status_e status = wrap(api, U8, {static_cast<int64_t>(payload.weights_size)},
                            const_cast<uint8_t*>(payload.weights), &delegate->weights_);
  if (status != OK) {
    log_error("cannot wrap %zu weight bytes: %s", payload.weights_size,
           api.describe(status).c_str());
    return Error::DelegateInvalidCompatibility;
  }
  ov_model_t* model = nullptr;
  status = api.ov_core_read_model_from_memory_buffer(openvino_core(), payload.xml, payload.xml_size,
                                                     delegate->weights_, &model);
  if (status != OK) {
    log_error("cannot read the model IR of the payload: %s",
           api.describe(status).c_str());
    return Error::DelegateInvalidCompatibility;
  }
  status = compile(api, model, options, &delegate->compiled_);
  api.ov_model_free(model);
  if (status != OK) {
    log_error("cannot compile the model for device '%s': %s", options.device.c_str(),
           api.describe(status).c_str());
    return Error::DelegateInvalidCompatibility;
  }
  record(api, options, delegate->compiled_);
  status = api.ov_compiled_model_create_infer_request(delegate->compiled_, &delegate->request_);
  if (status != OK) {
    log_error("cannot create an infer request: %s", api.describe(status).c_str());
    return Error::DelegateInvalidHandle;
  }
  Error ports = delegate->read_ports();
  if (ports != Error::Ok) return ports;
  delegate->scalars_.resize(delegate->inputs_.size());
  return delegate.release();
}

Error Delegate::read_ports() {
  for (bool is_input : {true, false}) {
    size_t count = 0;
    ov_status_e status = is_input ? api_.ov_compiled_model_inputs_size(compiled_, &count)
                                  : api_.ov_compiled_model_outputs_size(compiled_, &count);
    auto& infos = is_input ? inputs_ : outputs_;
    infos.resize(count);
    for (size_t i = 0; status == OK && i < count; ++i) {
      ov_output_const_port_t* port = nullptr;
      status = is_input ? api_.ov_compiled_model_input_by_index(compiled_, i, &port)
                        : api_.ov_compiled_model_output_by_index(compiled_, i, &port);
      if (status != OK) break;
      std::string error;
      bool ok = port_info(api_, port, &infos[i], &error);
      api_.ov_output_const_port_free(port);
      if (!ok) {
        log_error("cannot read %s %zu of the compiled model: %s",
               is_input ? "input" : "output", i, error.c_str());
        return Error::DelegateInvalidHandle;
      }
    }
    if (status != OK) {
      log_error("cannot list the compiled model's %s: %s",
             is_input ? "inputs" : "outputs", api_.describe(status).c_str());
      return Error::DelegateInvalidHandle;
    }
  }
  return Error::Ok;
}

Error Delegate::execute(Span<EValue*> args) {
  const size_t num_inputs = inputs_.size();
  const size_t num_outputs = outputs_.size();
  if (args.size() != num_inputs + num_outputs) {
    log_error("the delegate takes %zu inputs and %zu outputs but was called with %zu arguments",
           num_inputs, num_outputs, args.size());
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    Error error = bind_input(i, *args[i]);
    if (error != Error::Ok) return error;
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    Error error = bind_output(i, *args[num_inputs + i]);
    if (error != Error::Ok) return error;
  }
  ov_status_e status = api_.ov_infer_request_infer(request_);
  if (status != OK) {
    log_error("inference failed: %s", api_.describe(status).c_str());
    return Error::InvalidState;
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    EValue& value = *args[num_inputs + i];
    Error error = Error::Ok;
    if (!value.isTensor()) {
      error = copy_scalar_output(i, value);
    } else if (outputs_[i].dynamic) {
      error = copy_dynamic_output(i, value.toTensor());
    }
    if (error != Error::Ok) return error;
  }
  return Error::Ok;
}

Error Delegate::bind_input(size_t index, EValue& value) {
  const PortInfo& port = inputs_[index];
  ov_tensor_t* tensor = nullptr;
  ov_status_e status;
  if (value.isTensor()) {
    const Tensor& input = value.toTensor();
    ov_element_type_e type;
    Error error = check_tensor(port, input, "input", index, &type);
    if (error != Error::Ok) return error;
    status = wrap(api_, type, physical_dims(input), const_cast<void*>(input.const_data_ptr()), &tensor);
  } else if (value.isInt() || value.isBool() || value.isDouble()) {
    // Scalars reach the model as one-element tensors of the parameter's type.
    void* slot = &scalars_[index];
    if (port.type == I64 && value.isInt()) {
      scalars_[index] = value.toInt();
    } else if (port.type == BOOLEAN && value.isBool()) {
      *static_cast<bool*>(slot) = value.toBool();
    } else if (port.type == F32 && value.isDouble()) {
      *static_cast<float*>(slot) = static_cast<float>(value.toDouble());
    } else if (port.type == F64 && value.isDouble()) {
      *static_cast<double*>(slot) = value.toDouble();
    } else {
      log_error("delegate input %zu is a scalar (tag %d) but the compiled model expects %s",
             index, static_cast<int>(value.tag), element_type_name(port.type));
      return Error::InvalidArgument;
    }
    // ov_convert types ints as 0-d; a model that takes shape [1] gets that.
    status = wrap(api_, port.type, port.rank == 1 ? std::vector<int64_t>{1} : std::vector<int64_t>{},
                  slot, &tensor);
  } else {
    log_error("delegate input %zu is neither a tensor nor a scalar (tag %d)", index,
           static_cast<int>(value.tag));
    return Error::InvalidArgument;
  }
  if (status == OK) status = api_.ov_infer_request_set_input_tensor_by_index(request_, index, tensor);
  if (tensor) api_.ov_tensor_free(tensor);
  if (status != OK) {
    log_error("cannot bind delegate input %zu: %s", index, api_.describe(status).c_str());
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

Error Delegate::bind_output(size_t index, EValue& value) {
  if (value.isInt() || value.isDouble() || value.isBool()) {
    return Error::Ok;  // a scalar (a SymInt the CPU part reads) is written after inference
  }
  if (!value.isTensor()) {
    log_error("delegate output %zu is neither a tensor nor a scalar (tag %d)", index,
           static_cast<int>(value.tag));
    return Error::InvalidArgument;
  }
  const PortInfo& port = outputs_[index];
  Tensor& output = value.toTensor();
  ov_element_type_e type;
  Error error = check_tensor(port, output, "output", index, &type);
  if (error != Error::Ok || port.dynamic) return error;  // dynamic ones are copied after inference
  ov_tensor_t* tensor = nullptr;
  ov_status_e status = wrap(api_, type, physical_dims(output), output.mutable_data_ptr(), &tensor);
  if (status == OK) status = api_.ov_infer_request_set_output_tensor_by_index(request_, index, tensor);
  if (tensor) api_.ov_tensor_free(tensor);
  if (status != OK) {
    log_error("cannot bind delegate output %zu to ExecuTorch's buffer: %s", index,
           api_.describe(status).c_str());
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

// Writes a one-element output into the Int, Double or Bool value ExecuTorch expects there.
Error Delegate::copy_scalar_output(size_t index, EValue& value) {
  const PortInfo& port = outputs_[index];
  ov_tensor_t* tensor = nullptr;
  size_t count = 0;
  void* data = nullptr;
  ov_status_e status = api_.ov_infer_request_get_output_tensor_by_index(request_, index, &tensor);
  if (status == OK) status = api_.ov_tensor_get_size(tensor, &count);
  if (status == OK) status = api_.ov_tensor_data(tensor, &data);
  Error result = Error::Ok;
  if (status != OK) {
    log_error("cannot read delegate output %zu: %s", index, api_.describe(status).c_str());
    result = Error::InvalidState;
  } else if (count != 1) {
    log_error("delegate output %zu is a scalar but the model wrote %zu elements", index, count);
    result = Error::InvalidArgument;
  } else if (value.isInt() && port.type == I64) {
    value = EValue(*static_cast<const int64_t*>(data));
  } else if (value.isBool() && port.type == BOOLEAN) {
    value = EValue(*static_cast<const bool*>(data));
  } else if (value.isDouble() && (port.type == F32 || port.type == F64)) {
    value = EValue(port.type == F32 ? static_cast<double>(*static_cast<const float*>(data))
                                    : *static_cast<const double*>(data));
  } else {
    log_error("delegate output %zu is a scalar (tag %d) but the model writes %s", index,
           static_cast<int>(value.tag), element_type_name(port.type));
    result = Error::InvalidArgument;
  }
  if (tensor) api_.ov_tensor_free(tensor);
  return result;
}

Error Delegate::copy_dynamic_output(size_t index, Tensor& output) {
  ov_tensor_t* tensor = nullptr;
  ov_shape_t shape{};
  void* data = nullptr;
  size_t bytes = 0;
  ov_status_e status = api_.ov_infer_request_get_output_tensor_by_index(request_, index, &tensor);
  if (status == OK) status = api_.ov_tensor_get_shape(tensor, &shape);
  if (status == OK) status = api_.ov_tensor_get_byte_size(tensor, &bytes);
  if (status == OK) status = api_.ov_tensor_data(tensor, &data);
  Error result = Error::Ok;
  if (status != OK) {
    log_error("cannot read delegate output %zu: %s", index, api_.describe(status).c_str());
    result = Error::InvalidState;
  } else {
    // OpenVINO's shape is in memory order; ExecuTorch's sizes are logical.
    std::vector<SizesType> sizes(static_cast<size_t>(shape.rank));
    for (int64_t i = 0; i < shape.rank && shape.rank == output.dim(); ++i) {
      sizes[output.dim_order()[i]] = static_cast<SizesType>(shape.dims[i]);
    }
    Error resized = executorch::runtime::resize_tensor(output, {sizes.data(), sizes.size()});
    if (resized != Error::Ok || output.nbytes() != bytes) {
      log_error("cannot resize delegate output %zu to OpenVINO's shape of rank %lld "
             "(%zu bytes); ExecuTorch planned %zu bytes for it", index,
             static_cast<long long>(shape.rank), bytes, static_cast<size_t>(output.nbytes()));
      result = Error::InvalidArgument;
    } else if (bytes > 0) {
      std::memcpy(output.mutable_data_ptr(), data, bytes);
    }
  }
  if (shape.dims) api_.ov_shape_free(&shape);
  if (tensor) api_.ov_tensor_free(tensor);
  return result;
}

}  // namespace ov_executorch
