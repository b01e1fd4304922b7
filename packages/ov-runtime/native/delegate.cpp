#include "delegate.h"

#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/platform/platform.h>

#include <memory>
#include <new>
#include <string>

#include "compiled_blob.h"
#include "compiled_model.h"
#include "compiled_records.h"
#include "errors.h"

namespace ov_executorch {

using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::EventTracer;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

// Imports the payload's compiled blob when it applies here, else compiles its
// IR, into *compiled; *imported says which. The payload's bytes are known
// intact (parse_payload verified them): OpenVINO's import reads a blob as trusted.
Error load_model(const OpenvinoApi& api, const PayloadView& payload, const Properties& properties,
                 const std::string& runtime_keys, ov_tensor_t* weights,
                 ov_compiled_model_t** compiled, bool* imported) {
  std::string blob_unused;
  if (payload.blob && !runtime_keys.empty()) {
    // The blob was compiled for the payload's own device and properties.
    *imported = false;
    blob_unused = "the runtime options (" + runtime_keys + ") change what it was compiled for";
  } else {
    *imported = import_blob(api, payload, properties, compiled, &blob_unused);
  }
  if (!blob_unused.empty()) {
    log_info("compiling the delegate's IR, not its compiled blob: %s", blob_unused.c_str());
  }
  std::string error;
  if (!*imported && !compile_payload(api, payload, properties, weights, compiled, &error)) {
    log_error("%s", error.c_str());
    return Error::DelegateInvalidCompatibility;
  }
  return Error::Ok;
}

}  // namespace

Delegate::Delegate(const OpenvinoApi& api, FreeableBuffer&& processed, FreeableBuffer&& weights)
    : api_(api), processed_(std::move(processed)), named_weights_(std::move(weights)) {}

Delegate::~Delegate() {
  if (record_) forget_compiled(record_);
  if (request_) api_.ov_infer_request_free(request_);
  if (compiled_) api_.ov_compiled_model_free(compiled_);
  if (weights_) api_.ov_tensor_free(weights_);
  processed_.Free();
  named_weights_.Free();
}

Result<Delegate*> Delegate::create(const OpenvinoApi& api, FreeableBuffer&& processed,
                                   FreeableBuffer&& weights, const PayloadView& payload,
                                   const std::vector<std::string>& runtime_keys,
                                   EventTracer* tracer) {
  std::string keys;
  for (const std::string& key : runtime_keys) keys += (keys.empty() ? "" : ",") + key;
  std::unique_ptr<Delegate> delegate(
      new (std::nothrow) Delegate(api, std::move(processed), std::move(weights)));
  if (!delegate) {
    log_error("out of memory for the delegate state");
    return Error::MemoryAllocationFailed;
  }
  ov_shape_t shape{1, nullptr};
  int64_t weights_size = static_cast<int64_t>(payload.weights_size);
  shape.dims = &weights_size;
  ov_status_e status = api.ov_tensor_create_from_host_ptr(
      U8, shape, const_cast<uint8_t*>(payload.weights), &delegate->weights_);
  if (status != OK) {
    log_error("cannot wrap %zu weight bytes: %s", payload.weights_size,
              api.describe(status).c_str());
    return Error::DelegateInvalidCompatibility;
  }
  Properties properties = compile_properties(payload);
  bool imported = false;
  auto compile_event = executorch::runtime::event_tracer_start_profiling_delegate(
      tracer, kCompileEvent, executorch::runtime::kUnsetDelegateDebugIntId);
  Error loaded = load_model(api, payload, properties, keys, delegate->weights_,
                            &delegate->compiled_, &imported);
  if (loaded != Error::Ok) return loaded;
  std::string record =
      describe_compiled(api, payload.device, properties, delegate->compiled_, imported);
  if (!keys.empty()) record += " runtime_options=" + keys;
  // The compile event's metadata is the delegate's record: what applied.
  executorch::runtime::event_tracer_end_profiling_delegate(tracer, compile_event, record.data(),
                                                           record.size());
  delegate->events_ = InferenceEvents(counts_layers(api, delegate->compiled_));
  delegate->record_ = record_compiled(record);
  status = api.ov_compiled_model_create_infer_request(delegate->compiled_, &delegate->request_);
  if (status != OK) {
    log_error("cannot create an infer request: %s", api.describe(status).c_str());
    return Error::DelegateInvalidHandle;
  }
  Error bound = delegate->bind_ports(payload, imported);
  if (bound != Error::Ok) return bound;
  return delegate.release();
}

Error Delegate::bind_ports(const PayloadView& payload, bool imported) {
  for (bool is_input : {true, false}) {
    const char* kind = is_input ? "input" : "output";
    const std::string& signature = is_input ? payload.inputs : payload.outputs;
    size_t count = 0;
    ov_status_e status = is_input ? api_.ov_compiled_model_inputs_size(compiled_, &count)
                                  : api_.ov_compiled_model_outputs_size(compiled_, &count);
    if (status != OK) {
      log_error("cannot count the compiled model's %ss: %s", kind, api_.describe(status).c_str());
      return Error::DelegateInvalidHandle;
    }
    if (count != signature.size()) {
      log_error("the compiled model has %zu %ss but the payload's signature lists %zu", count,
                kind, signature.size());
      return Error::DelegateInvalidCompatibility;
    }
    std::vector<Argument>& arguments = is_input ? inputs_ : outputs_;
    arguments.resize(count);
    for (size_t i = 0; i < count; ++i) {
      ov_output_const_port_t* port = nullptr;
      status = is_input ? api_.ov_compiled_model_input_by_index(compiled_, i, &port)
                        : api_.ov_compiled_model_output_by_index(compiled_, i, &port);
      std::string error = status == OK ? "" : api_.describe(status);
      bool ok = status == OK && read_port(api_, port, &arguments[i].port, &error);
      if (port) api_.ov_output_const_port_free(port);
      if (!ok) {
        log_error("cannot read %s %zu of the compiled model: %s", kind, i, error.c_str());
        return Error::DelegateInvalidHandle;
      }
      // The signature was checked against the payload's IR (ir_outline.h), which
      // an imported blob need not be: the blob's outputs are copied, never bound.
      char letter = !is_input && imported && signature[i] == kTensorArgument ? kCopiedArgument
                                                                            : signature[i];
      arguments[i].binding = choose_binding(letter, arguments[i].port, is_input);
      bool positions = letter == kPositionsArgument || letter == kFirstPositionArgument;
      if (is_input && positions) positions_ = static_cast<int64_t>(i);
    }
  }
  return Error::Ok;
}

Error Delegate::restart_at_position_zero(const EValue& positions) {
  if (!has_run_) return Error::Ok;
  int64_t first = 0;
  if (positions.isInt()) {  // kFirstPositionArgument
    first = positions.toInt();
  } else if (positions.isTensor() && positions.toTensor().numel() > 0) {  // kPositionsArgument
    const executorch::aten::Tensor& tensor = positions.toTensor();
    switch (tensor.scalar_type()) {
      case executorch::aten::ScalarType::Long: first = tensor.const_data_ptr<int64_t>()[0]; break;
      case executorch::aten::ScalarType::Int: first = tensor.const_data_ptr<int32_t>()[0]; break;
      default: return Error::Ok;  // bind_input refuses the dtype
    }
  } else {
    return Error::Ok;  // bind_input checks the kind
  }
  if (first != 0) return Error::Ok;
  ov_infer_request_t* fresh = nullptr;
  ov_status_e status = api_.ov_compiled_model_create_infer_request(compiled_, &fresh);
  if (status != OK) {
    log_error("cannot create an infer request to start the KV cache again at position 0: %s",
              api_.describe(status).c_str());
    return Error::InvalidState;
  }
  api_.ov_infer_request_free(request_);
  request_ = fresh;
  has_run_ = false;
  for (std::vector<Argument>* arguments : {&inputs_, &outputs_}) {
    for (Argument& argument : *arguments) {
      argument.bound_data = nullptr;  // the new request holds no tensor yet
      argument.bound_dims.clear();
    }
  }
  return Error::Ok;
}

Error Delegate::execute(Span<EValue*> args, EventTracer* tracer) {
  const size_t num_inputs = inputs_.size();
  const size_t num_outputs = outputs_.size();
  if (args.size() != num_inputs + num_outputs) {
    log_error("the delegate takes %zu inputs and %zu outputs but was called with %zu arguments",
              num_inputs, num_outputs, args.size());
    return Error::InvalidArgument;
  }
  if (positions_ >= 0) {
    Error error = restart_at_position_zero(*args[positions_]);
    if (error != Error::Ok) return error;
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    Error error = bind_input(api_, request_, i, inputs_[i], *args[i]);
    if (error != Error::Ok) return error;
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    Error error = bind_output(api_, request_, i, outputs_[i], *args[num_inputs + i]);
    if (error != Error::Ok) return error;
  }
  const et_timestamp_t start = tracer ? et_pal_current_ticks() : 0;
  ov_status_e status = api_.ov_infer_request_infer(request_);
  if (status != OK) {
    log_error("inference failed: %s", api_.describe(status).c_str());
    return Error::InvalidState;
  }
  has_run_ = true;
  if (tracer) events_.log(api_, tracer, request_, start, et_pal_current_ticks());
  for (size_t i = 0; i < num_outputs; ++i) {
    Error error = read_output(api_, request_, i, outputs_[i], *args[num_inputs + i]);
    if (error != Error::Ok) return error;
  }
  return Error::Ok;
}

}  // namespace ov_executorch
