// One loaded delegate: the payload it reads from, OpenVINO's compiled model
// and infer request, and the binding of each of its arguments.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

#include <cstdint>
#include <vector>

#include "binding.h"
#include "openvino_api.h"
#include "payload.h"
#include "profiling.h"

namespace ov_executorch {

class Delegate {
 public:
  // Compiles the IR in `payload` (which points into `processed`, and into
  // `weights` when they are named data) with the payload's device and
  // properties, creates its infer request and chooses each argument's
  // binding. The delegate keeps both buffers alive: OpenVINO reads the
  // weights lazily. `runtime_keys` names the load-time options the
  // payload's values were overridden by (runtime_options.h): they show in the
  // delegate's record, and any of them keeps the payload's compiled blob,
  // made for the payload's own values, from being imported. The compile is
  // logged to `tracer` when there is one (profiling.h).
  static executorch::runtime::Result<Delegate*> create(
      const OpenvinoApi& api,
      executorch::runtime::FreeableBuffer&& processed,
      executorch::runtime::FreeableBuffer&& weights,
      const PayloadView& payload,
      const std::vector<std::string>& runtime_keys,
      executorch::runtime::EventTracer* tracer);

  ~Delegate();
  Delegate(const Delegate&) = delete;
  Delegate& operator=(const Delegate&) = delete;

  // args: the delegate's inputs, then its outputs, each bound as chosen at load.
  // The inference (and its layers, when the model counts them) is logged to
  // `tracer` when there is one.
  executorch::runtime::Error execute(executorch::runtime::Span<executorch::runtime::EValue*> args,
                                     executorch::runtime::EventTracer* tracer);

 private:
  Delegate(const OpenvinoApi& api, executorch::runtime::FreeableBuffer&& processed,
           executorch::runtime::FreeableBuffer&& weights);

  // Reads the compiled model's ports and binds them per the payload's signature;
  // every tensor output of a model `imported` from the payload's blob is copied.
  executorch::runtime::Error bind_ports(const PayloadView& payload, bool imported);

  // Gives the call a new infer request, whose state is the initial one, when
  // its KV-cache positions start at 0 after earlier calls (payload.h's
  // kPositionsArgument or kFirstPositionArgument). OpenVINO's C API has no call that resets a request's
  // state, and a new request is what a new load would have.
  executorch::runtime::Error restart_at_position_zero(const executorch::runtime::EValue& positions);

  const OpenvinoApi& api_;
  executorch::runtime::FreeableBuffer processed_;
  executorch::runtime::FreeableBuffer named_weights_;  // empty when the payload holds them
  ov_tensor_t* weights_ = nullptr;
  ov_compiled_model_t* compiled_ = nullptr;
  ov_infer_request_t* request_ = nullptr;
  InferenceEvents events_;  // what each inference logs to an event tracer
  uint64_t record_ = 0;  // its entry among the compiled delegates (compiled_records.h)
  std::vector<Argument> inputs_;
  std::vector<Argument> outputs_;
  int64_t positions_ = -1;  // the input of KV-cache positions, if any
  bool has_run_ = false;    // an inference ran on request_
};

}  // namespace ov_executorch
