// How each delegate argument reaches OpenVINO's infer request. The binding is
// chosen once, when the delegate loads, from the payload's signature and the
// compiled model's port, and execute() only carries it out.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>

#include <cstdint>
#include <string>
#include <vector>

#include "openvino_api.h"

namespace ov_executorch {

enum class Binding {
  // A tensor wrapped in place: every input tensor, and each output whose
  // shape is static, which OpenVINO then writes into ExecuTorch's buffer.
  kZeroCopy,
  // An output whose shape can change, or one the model passes through (which
  // OpenVINO does not write into a bound buffer): OpenVINO keeps its own
  // buffer; after inference the ExecuTorch tensor is resized to OpenVINO's
  // shape and the data copied in.
  kCopyAfterInfer,
  // An Int, Double or Bool EValue: an input is copied into a one-element
  // tensor; an output's one element is written into the EValue after inference.
  kScalar,
};

const char* binding_name(Binding binding);

// What a compiled model's input or output takes.
struct Port {
  ov_element_type_e type = DYNAMIC;
  int64_t rank = -1;          // -1: dynamic rank
  bool static_shape = false;  // the rank and every dimension are fixed
};

// One delegate argument: its port, its binding, and the storage of a scalar input.
struct Argument {
  Port port;
  Binding binding = Binding::kZeroCopy;
  int64_t scalar = 0;  // 8 bytes for an int, bool or float input
  // The memory and memory-order sizes last bound to the request's port. The
  // request keeps that tensor, so a call that binds the same memory and sizes
  // again (ExecuTorch's planned buffers, a scalar's slot) skips the binding.
  const void* bound_data = nullptr;
  std::vector<int64_t> bound_dims;
};

// Reads the element type and shape of a compiled model's port.
bool read_port(const OpenvinoApi& api, const ov_output_const_port_t* port, Port* info,
               std::string* error);

// The binding of an argument of `kind` ('T' tensor, 'S' scalar, 'C' copied output, from
// the payload).
Binding choose_binding(char kind, const Port& port, bool is_input);

// Sets the index-th input of `request` from `value`.
executorch::runtime::Error bind_input(const OpenvinoApi& api, ov_infer_request_t* request,
                                      size_t index, Argument& argument,
                                      executorch::runtime::EValue& value);

// Before inference: binds a kZeroCopy output to ExecuTorch's buffer; checks
// that every output is the kind of value its binding expects.
executorch::runtime::Error bind_output(const OpenvinoApi& api, ov_infer_request_t* request,
                                       size_t index, Argument& argument,
                                       executorch::runtime::EValue& value);

// After inference: writes kCopyAfterInfer and kScalar outputs into `value`.
executorch::runtime::Error read_output(const OpenvinoApi& api, ov_infer_request_t* request,
                                       size_t index, const Argument& argument,
                                       executorch::runtime::EValue& value);

}  // namespace ov_executorch
