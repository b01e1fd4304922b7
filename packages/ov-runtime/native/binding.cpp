#include "binding.h"

#include <executorch/runtime/core/exec_aten/util/tensor_util.h>

#include <cstring>
#include <vector>

#include "element_types.h"
#include "errors.h"
#include "payload.h"

namespace ov_executorch {

using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;

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

// Binds `dims` of `type` at `data` (not copied) to the request's index-th
// input or output, unless that memory and those sizes are bound already.
ov_status_e bind_memory(const OpenvinoApi& api, ov_infer_request_t* request, size_t index,
                        bool is_input, Argument& argument, std::vector<int64_t> dims,
                        void* data) {
  if (argument.bound_data == data && argument.bound_dims == dims) return OK;
  argument.bound_data = nullptr;
  ov_tensor_t* tensor = nullptr;
  ov_status_e status = wrap(api, argument.port.type, dims, data, &tensor);
  if (status == OK) {
    status = is_input ? api.ov_infer_request_set_input_tensor_by_index(request, index, tensor)
                      : api.ov_infer_request_set_output_tensor_by_index(request, index, tensor);
  }
  if (tensor) api.ov_tensor_free(tensor);
  if (status == OK) {
    argument.bound_data = data;
    argument.bound_dims = std::move(dims);
  }
  return status;
}

// The tensor's sizes in memory order: sizes permuted by its dim order, which
// is how ov_convert typed the model's parameters and results (NHWC for a
// channels_last NCHW tensor).
std::vector<int64_t> physical_dims(const Tensor& tensor) {
  std::vector<int64_t> dims(tensor.dim());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = tensor.size(tensor.dim_order()[i]);
  return dims;
}

bool is_scalar(const EValue& value) {
  return value.isInt() || value.isBool() || value.isDouble();
}

// Refuses a value that is not the kind its binding takes (a tensor for a
// scalar, or the reverse): the program and the payload disagree.
Error check_kind(const Argument& argument, const EValue& value, const char* kind, size_t index) {
  bool scalar = argument.binding == Binding::kScalar;
  if (scalar ? is_scalar(value) : value.isTensor()) return Error::Ok;
  log_error("delegate %s %zu is an EValue with tag %d; the payload binds it as %s", kind, index,
            static_cast<int>(value.tag), binding_name(argument.binding));
  return Error::InvalidArgument;
}

Error check_tensor(const Port& port, const Tensor& tensor, const char* kind, size_t index,
                   ov_element_type_e* type) {
  if (!to_element_type(tensor.scalar_type(), type) || *type != port.type) {
    log_error("delegate %s %zu has dtype %s; the compiled model expects %s", kind, index,
              executorch::runtime::toString(tensor.scalar_type()), element_type_name(port.type));
    return Error::InvalidArgument;
  }
  if (port.rank >= 0 && port.rank != tensor.dim()) {
    log_error("delegate %s %zu has rank %zd; the compiled model expects rank %lld", kind, index,
              static_cast<ssize_t>(tensor.dim()), static_cast<long long>(port.rank));
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

// Copies a scalar input into the argument's storage, typed as the model's parameter.
bool store_scalar(Argument& argument, const EValue& value) {
  void* slot = &argument.scalar;
  ov_element_type_e type = argument.port.type;
  if (type == I64 && value.isInt()) {
    argument.scalar = value.toInt();
  } else if (type == BOOLEAN && value.isBool()) {
    *static_cast<bool*>(slot) = value.toBool();
  } else if (type == F32 && value.isDouble()) {
    *static_cast<float*>(slot) = static_cast<float>(value.toDouble());
  } else {
    return false;
  }
  return true;
}

Error copy_scalar_output(const OpenvinoApi& api, ov_infer_request_t* request, size_t index,
                         const Port& port, EValue& value) {
  ov_tensor_t* tensor = nullptr;
  size_t count = 0;
  void* data = nullptr;
  ov_status_e status = api.ov_infer_request_get_output_tensor_by_index(request, index, &tensor);
  if (status == OK) status = api.ov_tensor_get_size(tensor, &count);
  if (status == OK) status = api.ov_tensor_data(tensor, &data);
  Error result = Error::Ok;
  if (status != OK) {
    log_error("cannot read delegate output %zu: %s", index, api.describe(status).c_str());
    result = Error::InvalidState;
  } else if (count != 1) {
    log_error("delegate output %zu is a scalar but the model wrote %zu elements", index, count);
    result = Error::InvalidArgument;
  } else if (value.isInt() && port.type == I64) {
    value = EValue(*static_cast<const int64_t*>(data));
  } else if (value.isBool() && port.type == BOOLEAN) {
    value = EValue(*static_cast<const bool*>(data));
  } else if (value.isDouble() && port.type == F32) {
    value = EValue(static_cast<double>(*static_cast<const float*>(data)));
  } else {
    log_error("delegate output %zu is a scalar (tag %d) but the model writes %s", index,
              static_cast<int>(value.tag), element_type_name(port.type));
    result = Error::InvalidArgument;
  }
  if (tensor) api.ov_tensor_free(tensor);
  return result;
}

Error copy_tensor_output(const OpenvinoApi& api, ov_infer_request_t* request, size_t index,
                         Tensor& output) {
  ov_tensor_t* tensor = nullptr;
  ov_shape_t shape{};
  void* data = nullptr;
  size_t bytes = 0;
  ov_status_e status = api.ov_infer_request_get_output_tensor_by_index(request, index, &tensor);
  // The C API's ov_tensor_get_shape refuses a 0-d tensor (ov_shape_create
  // takes rank >= 1); a 0-d output has no sizes to read.
  if (status == OK && output.dim() > 0) status = api.ov_tensor_get_shape(tensor, &shape);
  if (status == OK) status = api.ov_tensor_get_byte_size(tensor, &bytes);
  if (status == OK) status = api.ov_tensor_data(tensor, &data);
  Error result = Error::Ok;
  if (status != OK) {
    log_error("cannot read delegate output %zu: %s", index, api.describe(status).c_str());
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
                "(%zu bytes); ExecuTorch planned %zu bytes for it",
                index, static_cast<long long>(shape.rank), bytes,
                static_cast<size_t>(output.nbytes()));
      result = Error::InvalidArgument;
    } else if (bytes > 0) {
      std::memcpy(output.mutable_data_ptr(), data, bytes);
    }
  }
  if (shape.dims) api.ov_shape_free(&shape);
  if (tensor) api.ov_tensor_free(tensor);
  return result;
}

}  // namespace

const char* binding_name(Binding binding) {
  switch (binding) {
    case Binding::kZeroCopy: return "a tensor bound in place";
    case Binding::kCopyAfterInfer: return "a tensor copied after inference";
    case Binding::kScalar: return "a scalar";
  }
  return "an unknown binding";
}

bool read_port(const OpenvinoApi& api, const ov_output_const_port_t* port, Port* info,
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
  info->static_shape = info->rank >= 0;
  for (int64_t i = 0; i < info->rank && info->static_shape; ++i) {
    info->static_shape = fixed(shape.dims[i]);
  }
  api.ov_partial_shape_free(&shape);
  return true;
}

Binding choose_binding(char kind, const Port& port, bool is_input) {
  if (kind == kScalarArgument || kind == kFirstPositionArgument) return Binding::kScalar;
  if (kind == kCopiedArgument) return Binding::kCopyAfterInfer;
  return is_input || port.static_shape ? Binding::kZeroCopy : Binding::kCopyAfterInfer;
}

Error bind_input(const OpenvinoApi& api, ov_infer_request_t* request, size_t index,
                 Argument& argument, EValue& value) {
  Error error = check_kind(argument, value, "input", index);
  if (error != Error::Ok) return error;
  ov_status_e status;
  if (argument.binding == Binding::kScalar) {
    if (!store_scalar(argument, value)) {
      log_error("delegate input %zu is a scalar (tag %d) but the compiled model expects %s",
                index, static_cast<int>(value.tag), element_type_name(argument.port.type));
      return Error::InvalidArgument;
    }
    // ov_convert types scalars as 0-d; a model that takes shape [1] gets that.
    std::vector<int64_t> dims = argument.port.rank == 1 ? std::vector<int64_t>{1}
                                                        : std::vector<int64_t>{};
    status = bind_memory(api, request, index, true, argument, dims, &argument.scalar);
  } else {
    const Tensor& input = value.toTensor();
    ov_element_type_e type;
    error = check_tensor(argument.port, input, "input", index, &type);
    if (error != Error::Ok) return error;
    status = bind_memory(api, request, index, true, argument, physical_dims(input),
                         const_cast<void*>(input.const_data_ptr()));
  }
  if (status != OK) {
    log_error("cannot bind delegate input %zu: %s", index, api.describe(status).c_str());
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

Error bind_output(const OpenvinoApi& api, ov_infer_request_t* request, size_t index,
                  Argument& argument, EValue& value) {
  Error error = check_kind(argument, value, "output", index);
  if (error != Error::Ok || argument.binding == Binding::kScalar) return error;
  Tensor& output = value.toTensor();
  ov_element_type_e type;
  error = check_tensor(argument.port, output, "output", index, &type);
  if (error != Error::Ok || argument.binding != Binding::kZeroCopy) return error;
  ov_status_e status = bind_memory(api, request, index, false, argument, physical_dims(output),
                                   output.mutable_data_ptr());
  if (status != OK) {
    log_error("cannot bind delegate output %zu to ExecuTorch's buffer: %s", index,
              api.describe(status).c_str());
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

Error read_output(const OpenvinoApi& api, ov_infer_request_t* request, size_t index,
                  const Argument& argument, EValue& value) {
  switch (argument.binding) {
    case Binding::kZeroCopy: return Error::Ok;
    case Binding::kCopyAfterInfer: return copy_tensor_output(api, request, index, value.toTensor());
    case Binding::kScalar: return copy_scalar_output(api, request, index, argument.port, value);
  }
  return Error::Internal;
}

}  // namespace ov_executorch
