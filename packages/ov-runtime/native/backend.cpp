// The ExecuTorch backend that runs delegates on OpenVINO, registered under
// this project's backend id (ov_spec.BACKEND_ID, passed in by the build).
//
// init() checks the compile specs and the payload, then compiles a Delegate;
// execute() and destroy() hand the call to it.

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/platform/log.h>

#include <string>

#include "compile_options.h"
#include "delegate.h"
#include "errors.h"
#include "openvino_api.h"
#include "payload.h"

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
    (void)context;
    std::string error;
    CompileOptions options;
    if (!parse_compile_options(compile_specs, &options, &error)) {
      log_error("bad compile specs: %s", error.c_str());
      return Error::InvalidArgument;
    }
    const OpenvinoApi* api = openvino_api(&error);
    if (api == nullptr) {
      log_error("the backend is not available: %s", error.c_str());
      return Error::NotSupported;
    }
    PayloadView payload;
    if (!parse_payload(processed->data(), processed->size(), &payload, &error)) {
      log_error("cannot read the delegate payload: %s", error.c_str());
      return Error::DelegateInvalidCompatibility;
    }
    Result<Delegate*> delegate = Delegate::create(*api, std::move(*processed), payload, options);
    if (!delegate.ok()) return delegate.error();
    return static_cast<DelegateHandle*>(delegate.get());
  }

  Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                Span<EValue*> args) const override {
    (void)context;
    return static_cast<Delegate*>(handle)->execute(args);
  }

  void destroy(DelegateHandle* handle) const override {
    delete static_cast<Delegate*>(handle);
  }
};

OpenvinoBackend backend;
const Backend registration{OV_EXECUTORCH_BACKEND_ID, &backend};
const Error registered = [] {
  Error error = executorch::runtime::register_backend(registration);
  if (error != Error::Ok) {
    log_error("cannot register the backend as '%s' (error %d); is the name taken?",
           OV_EXECUTORCH_BACKEND_ID, static_cast<int>(error));
  }
  return error;
}();

}  // namespace
}  // namespace ov_executorch

// Returns why OpenVINO's runtime cannot be used in this process, or an empty
// string when it can. Loads OpenVINO's C library on first use.
extern "C" __attribute__((visibility("default"))) const char* ov_executorch_unavailable_reason() {
  static const std::string reason = [] {
    std::string error;
    return ov_executorch::openvino_api(&error) != nullptr ? std::string() : error;
  }();
  return reason.c_str();
}
