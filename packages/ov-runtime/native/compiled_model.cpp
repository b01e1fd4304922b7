#include "compiled_model.h"


#include <utility>
#include <vector>

#include "cpu_features.h"
#include "errors.h"
#include "model_cache.h"

namespace ov_executorch {
namespace {

constexpr const char* kPrecisionKey = "INFERENCE_PRECISION_HINT";
// The CPU plugin's switch for its low-precision (int8) transformations.
constexpr const char* kLowPrecisionKey = "LP_TRANSFORMS_MODE";

// ov_core_compile_model takes its properties as variadic (key, value)
// arguments (the non-variadic form is missing from the 2025 releases this
// backend supports), so the call is expanded for each count up to the limit.
template <size_t... I>
ov_status_e compile_with(const OpenvinoApi& api, const ov_model_t* model, const char* device,
                         const std::vector<const char*>& args, ov_compiled_model_t** compiled,
                         std::index_sequence<I...>) {
  return api.ov_core_compile_model(openvino_core(), model, device, sizeof...(I), compiled,
                                   args[I]...);
}

template <size_t N = 0>
ov_status_e compile_with_args(const OpenvinoApi& api, const ov_model_t* model, const char* device,
                              const std::vector<const char*>& args,
                              ov_compiled_model_t** compiled) {
  if constexpr (N > 2 * (kMaxProperties + 2)) {  // compile_properties may add two
    return INVALID_C_PARAM;  // compile_payload checks the count first
  } else {
    if (args.size() == N) {
      return compile_with(api, model, device, args, compiled, std::make_index_sequence<N>{});
    }
    return compile_with_args<N + 2>(api, model, device, args, compiled);
  }
}

// "CPU, GPU.0": the devices OpenVINO finds in this process.
std::string available_devices(const OpenvinoApi& api) {
  ov_available_devices_t devices{};
  if (api.ov_core_get_available_devices(openvino_core(), &devices) != OK) return "unknown";
  std::string names;
  for (size_t i = 0; i < devices.size; ++i) {
    names += (i ? ", " : "") + std::string(devices.devices[i]);
  }
  api.ov_available_devices_free(&devices);
  return names.empty() ? "none" : names;
}

}  // namespace

Properties compile_properties(const PayloadView& payload) {
  Properties properties;
  bool has_mode = false;
  bool has_cache = false;
  for (const auto& property : payload.properties) {
    has_mode |= property.first == kLowPrecisionKey;
    has_cache |= property.first == kCacheDirKey;  // an empty one is OpenVINO's "no cache"
    properties.push_back(property);
  }
  if (!has_cache) {
    if (std::optional<std::string> folder = default_cache_dir()) {
      properties.emplace_back(kCacheDirKey, *folder);
    }
  }
  if ((payload.flags & kWideInt8Weights) && payload.device == "CPU" && !has_mode &&
      !int8_products_exact()) {
    log_info(
        "this CPU has no VNNI, and the delegate's int8 weights exceed +-64, whose products "
        "OpenVINO's int8 kernels would saturate here; its int8 layers run in float32 instead, "
        "as exactly as the quantized model");
    properties.emplace_back(kLowPrecisionKey, "NO");
  }
  return properties;
}

bool compile_payload(const OpenvinoApi& api, const PayloadView& payload,
                     const Properties& properties, ov_tensor_t* weights,
                     ov_compiled_model_t** compiled, std::string* error) {
  if (payload.properties.size() > kMaxProperties) {
    *error = "the payload carries " + std::to_string(payload.properties.size()) +
        " OpenVINO properties; this runtime applies at most " + std::to_string(kMaxProperties);
    return false;
  }
  ov_model_t* model = nullptr;
  ov_status_e status = api.ov_core_read_model_from_memory_buffer(
      openvino_core(), payload.xml, payload.xml_size, weights, &model);
  if (status != OK) {
    *error = "cannot read the model IR of the payload: " + api.describe(status);
    return false;
  }
  if (api.keep_exact_divisions) api.keep_exact_divisions(model);
  std::vector<const char*> args;
  for (const auto& [key, value] : properties) {
    args.push_back(key.c_str());
    args.push_back(value.c_str());
  }
  status = compile_with_args(api, model, payload.device.c_str(), args, compiled);
  api.ov_model_free(model);
  if (status != OK) {
    std::string reason = api.describe(status);  // before another call replaces OpenVINO's message
    *error = "cannot compile the model for device '" + payload.device + "': " + reason +
        " (devices available here: " + available_devices(api) + ")";
    return false;
  }
  return true;
}

std::string describe_compiled(const OpenvinoApi& api, const std::string& device,
                              const Properties& properties, const ov_compiled_model_t* compiled,
                              bool imported) {
  std::vector<std::string> keys{kPrecisionKey};
  std::string text = "device=" + device + " loaded_from=" + (imported ? "blob" : "ir");
  for (const auto& property : properties) {
    // The compiled model does not report the low-precision mode: it is written as set.
    if (property.first == kLowPrecisionKey) {
      text += " " + property.first + "=" + property.second;
    } else if (property.first != kPrecisionKey) {
      keys.push_back(property.first);
    }
  }
  for (const auto& key : keys) {
    char* value = nullptr;
    // Properties that only the core knows (CACHE_DIR) are not reported by the
    // compiled model; they are left out.
    if (api.ov_compiled_model_get_property(compiled, key.c_str(), &value) == OK && value) {
      text += " " + key + "=" + value;
      api.ov_free(value);
    }
  }
  return text;
}

}  // namespace ov_executorch
