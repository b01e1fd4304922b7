// A delegate's events for ExecuTorch's event tracer (an ETDump, when the
// method was loaded with one): its compile in init, each inference, and, when
// the compiled model counts time per layer (OpenVINO's PERF_COUNT property),
// each layer OpenVINO executed. Without an event tracer nothing is measured.
#pragma once

#include <executorch/runtime/core/event_tracer.h>

#include <cstddef>
#include <string>
#include <vector>

#include "openvino_api.h"

namespace ov_executorch {

// The event of a delegate's compile (or blob import), logged in init.
constexpr const char* kCompileEvent = "OpenVINO compile";
// The event of one inference, logged by each execute.
constexpr const char* kInferEvent = "OpenVINO infer";

// Whether `compiled` reports per-layer counters: its PERF_COUNT reads YES.
bool counts_layers(const OpenvinoApi& api, const ov_compiled_model_t* compiled);

// The events of one delegate's inferences.
class InferenceEvents {
 public:
  // `layers`: the compiled model counts time per layer (counts_layers).
  explicit InferenceEvents(bool layers = false) : layers_(layers) {}

  // Logs an inference that ran from `start` to `end` (ExecuTorch's ticks) to
  // `tracer`. Where the model counts layers, also one event per layer, named
  // for the layer, with "<layer type> <exec type>" (for example
  // "FullyConnected brgemm_avx512_f32") as its metadata: the layers OpenVINO
  // reported as executed at the first inference logged, the same ones at
  // every later inference, so that each call logs the same events (the CPU
  // plugin reports a layer whose mean time rounds to 0 us as not run).
  // OpenVINO reports each layer's time (real_time; the CPU plugin's mean per
  // inference so far), not when it started, so the layers' events are laid
  // end to end from `start`, in the order OpenVINO lists them.
  void log(const OpenvinoApi& api, executorch::runtime::EventTracer* tracer,
           const ov_infer_request_t* request, et_timestamp_t start, et_timestamp_t end);

 private:
  bool layers_;
  bool chosen_ = false;           // the layers to log were chosen
  std::vector<size_t> logged_;    // their indices in OpenVINO's list
};

}  // namespace ov_executorch
