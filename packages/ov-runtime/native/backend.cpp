// The ExecuTorch backend that runs delegates on OpenVINO, registered under
// this project's backend id (ov_spec.BACKEND_ID, passed in by the build) when
// the library loads.
//
// init() reads the payload, finds its weights (in the payload or in the
// method's named data) and compiles a Delegate with the device and
// OpenVINO properties the payload carries (resolved from the compile specs at
// lowering, so the compile specs themselves are not read again here), each
// overridden by the application's load-time options (runtime_options.h);
// execute() and destroy() hand the call to it. Both log their events to the
// method's event tracer, when it was loaded with one (profiling.h).

#include <executorch/runtime/backend/interface.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "c_api.h"
#include "compiled_model.h"
#include "ov_executorch/backend.h"
#include "delegate.h"
#include "errors.h"
#include "ir_outline.h"
#include "named_weights.h"
#include "openvino_api.h"
#include "payload.h"
#include "runtime_options.h"

#ifndef OV_EXECUTORCH_BACKEND_ID
#error "OV_EXECUTORCH_BACKEND_ID must be defined by the build (read from ov_spec)"
#endif

namespace ov_executorch {
namespace {

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

// Parses and checks the payload as far as can be done before OpenVINO reads
// it: its layout, checksum and flags (parse_payload), then the bounds of its
// XML and its signature against the IR (ir_outline.h). Logs the reason and
// returns false when it is refused.
bool read_payload(const void* data, size_t size, PayloadView* payload) {
  std::string error;
  IrOutline outline;
  if (!parse_payload(data, size, payload, &error) ||
      !outline_ir(payload->xml, payload->xml_size, &outline, &error) ||
      !check_signature(*payload, outline, &error)) {
    log_error("cannot read the delegate payload: %s", error.c_str());
    return false;
  }
  return true;
}

class OpenvinoBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    std::string error;
    if (openvino_api(&error) == nullptr) {
      log_error("the backend is not available: %s", error.c_str());
      return false;
    }
    return true;
  }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> compile_specs) const override {
    (void)compile_specs;  // resolved into the payload's options at lowering
    std::string error;
    const OpenvinoApi* api = openvino_api(&error);
    if (api == nullptr) {
      log_error("the backend is not available: %s", error.c_str());
      return Error::NotSupported;
    }
    PayloadView payload;
    if (!read_payload(processed->data(), processed->size(), &payload)) {
      return Error::DelegateInvalidCompatibility;
    }
    std::vector<std::string> runtime_keys;
    if (!apply_runtime_options(context.runtime_specs(), &payload, &runtime_keys, &error)) {
      log_error("%s", error.c_str());
      return Error::InvalidArgument;
    }
    Result<FreeableBuffer> weights =
        payload.flags & kNamedWeights
            ? load_named_weights(context.get_named_data_map(), &payload)
            : Result<FreeableBuffer>(FreeableBuffer());  // the payload holds them
    if (!weights.ok()) return weights.error();
    Result<Delegate*> delegate =
        Delegate::create(*api, std::move(*processed), std::move(weights.get()), payload,
                         runtime_keys, context.event_tracer());
    if (!delegate.ok()) return delegate.error();
    return static_cast<DelegateHandle*>(delegate.get());
  }

  Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                Span<EValue*> args) const override {
    return static_cast<Delegate*>(handle)->execute(args, context.event_tracer());
  }

  void destroy(DelegateHandle* handle) const override {
    delete static_cast<Delegate*>(handle);
  }
};

OpenvinoBackend backend;
const Backend registration{OV_EXECUTORCH_BACKEND_ID, &backend};

// Registers the backend once, when the library loads; keeps the reason when
// ExecuTorch's registry refuses it.
const std::string& registration_error() {
  static const std::string reason = [] {
    Error error = executorch::runtime::register_backend(registration);
    if (error == Error::Ok) return std::string();
    std::string text = "ExecuTorch's backend registry refused the name '" OV_EXECUTORCH_BACKEND_ID
                       "' (error " + std::to_string(static_cast<int>(error)) + ")";
    BackendInterface* holder = executorch::runtime::get_backend_class(OV_EXECUTORCH_BACKEND_ID);
    if (holder != nullptr && holder != &backend) {
      text += ": another library registered a backend of that name first";
    } else {
      text += "; it holds " + std::to_string(executorch::runtime::get_num_registered_backends()) +
          " backends and may be full";
    }
    log_error("%s", text.c_str());
    return text;
  }();
  return reason;
}

[[maybe_unused]] const bool registered_at_load = registration_error().empty();

}  // namespace
}  // namespace ov_executorch

const char* ov_executorch_registration_error() {
  return ov_executorch::registration_error().c_str();
}

int ov_executorch_check_payload(const void* data, size_t size) {
  ov_executorch::clear_last_error();
  ov_executorch::PayloadView payload;
  if (ov_executorch::read_payload(data, size, &payload)) return 0;
  return static_cast<int>(executorch::runtime::Error::DelegateInvalidCompatibility);
}

long ov_executorch_compile_properties(const void* data, size_t size, char* buffer,
                                      size_t buffer_size) {
  ov_executorch::clear_last_error();
  ov_executorch::PayloadView payload;
  if (!ov_executorch::read_payload(data, size, &payload)) return -1;
  std::string text;
  for (const auto& [key, value] : ov_executorch::compile_properties(payload)) {
    text += key + "=" + value + "\n";
  }
  if (buffer && buffer_size > 0) {
    size_t n = std::min(buffer_size - 1, text.size());
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return static_cast<long>(text.size());
}

int ov_executorch_register_backend(void) {
  if (ov_executorch::registration_error().empty()) return 0;
  return static_cast<int>(executorch::runtime::Error::InvalidState);
}

const char* ov_executorch_backend_id() { return OV_EXECUTORCH_BACKEND_ID; }

const char* ov_executorch_unavailable_reason() {
  static const std::string reason = [] {
    std::string error;
    return ov_executorch::openvino_api(&error) != nullptr ? std::string() : error;
  }();
  return reason.c_str();
}
