#include "profiling.h"

#include <executorch/runtime/core/event_tracer_hooks_delegate.h>
#include <executorch/runtime/platform/platform.h>

#include <cstring>

#include "errors.h"

namespace ov_executorch {

using executorch::runtime::EventTracer;
using executorch::runtime::kUnsetDelegateDebugIntId;

bool counts_layers(const OpenvinoApi& api, const ov_compiled_model_t* compiled) {
  char* value = nullptr;
  if (api.ov_compiled_model_get_property(compiled, "PERF_COUNT", &value) != OK || !value) {
    return false;
  }
  const bool counts = std::strcmp(value, "YES") == 0;
  api.ov_free(value);
  return counts;
}

void InferenceEvents::log(const OpenvinoApi& api, EventTracer* tracer,
                          const ov_infer_request_t* request, et_timestamp_t start,
                          et_timestamp_t end) {
  if (tracer == nullptr) return;
  executorch::runtime::event_tracer_log_profiling_delegate(tracer, kInferEvent,
                                                           kUnsetDelegateDebugIntId, start, end);
  if (!layers_) return;
  ov_profiling_info_list_t list{nullptr, 0};
  ov_status_e status = api.ov_infer_request_get_profiling_info(request, &list);
  if (status != OK) {
    log_error("cannot read OpenVINO's per-layer counters: %s", api.describe(status).c_str());
    return;
  }
  if (!chosen_) {
    for (size_t i = 0; i < list.size; ++i) {
      if (list.profiling_infos[i].status == ov_profiling_info_t::EXECUTED) logged_.push_back(i);
    }
    chosen_ = true;
  }
  // ticks = ns * denominator / numerator (ExecuTorch's tick ratio gives ns per tick).
  const et_tick_ratio_t ratio = et_pal_ticks_to_ns_multiplier();
  et_timestamp_t at = start;
  for (size_t i : logged_) {
    if (i >= list.size) break;
    const ov_profiling_info_t& layer = list.profiling_infos[i];
    const uint64_t ns = static_cast<uint64_t>(layer.real_time > 0 ? layer.real_time : 0) * 1000;
    const et_timestamp_t until = at + ns * ratio.denominator / ratio.numerator;
    const std::string kinds = std::string(layer.node_type ? layer.node_type : "") + " " +
        (layer.exec_type ? layer.exec_type : "");
    executorch::runtime::event_tracer_log_profiling_delegate(
        tracer, layer.node_name ? layer.node_name : "", kUnsetDelegateDebugIntId, at, until,
        kinds.data(), kinds.size());
    at = until;
  }
  api.ov_profiling_info_list_free(&list);
}

}  // namespace ov_executorch
