#include "compiled_blob.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace ov_executorch {
namespace {

std::string openvino_version(const OpenvinoApi& api) {
  ov_version_t version{};
  if (api.ov_get_openvino_version(&version) != OK) return "unknown";
  std::string text = version.buildNumber ? version.buildNumber : "unknown";
  api.ov_version_free(&version);
  return text;
}

std::string device_name(const OpenvinoApi& api, const ov_core_t* core, const char* device) {
  char* value = nullptr;
  if (api.ov_core_get_property(core, device, "FULL_DEVICE_NAME", &value) != OK || !value) {
    return "unknown";
  }
  std::string name = value;
  api.ov_free(value);
  return name;
}

// A property this runtime compiles with that the payload does not carry.
const std::string* added_property(const PayloadView& payload, const Properties& properties) {
  for (const auto& property : properties) {
    bool carried = std::find(payload.properties.begin(), payload.properties.end(), property) !=
        payload.properties.end();
    if (!carried && property.first != kCacheDirKey) return &property.first;
  }
  return nullptr;
}

// A core for importing blobs with `settings` on `device`, made on first use
// and kept for the process, as the process's own core is: a new core costs
// more than the import of a small model (its plugin is set up again).
// Returns nullptr and sets *reason when it cannot be made.
ov_core_t* import_core(const OpenvinoApi& api, const std::string& device,
                       const Properties& settings, std::string* reason) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, Properties>, ov_core_t*> cores;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(device, settings);
  if (auto found = cores.find(key); found != cores.end()) return found->second;
  ov_core_t* core = nullptr;
  ov_status_e status = api.ov_core_create(&core);
  if (status != OK) {
    *reason = "cannot create a core to import it: " + api.describe(status);
    return nullptr;
  }
  for (const auto& [name, value] : settings) {
    // Its variadic arguments are one key and one value per call.
    status = api.ov_core_set_property(core, device.c_str(), name.c_str(), value.c_str());
    if (status != OK) {
      *reason = "cannot set " + name + "=" + value + " for it: " + api.describe(status);
      api.ov_core_free(core);
      return nullptr;
    }
  }
  return cores.emplace(key, core).first->second;
}

}  // namespace

bool import_blob(const OpenvinoApi& api, const PayloadView& payload, const Properties& properties,
                 ov_compiled_model_t** compiled, std::string* reason) {
  reason->clear();
  if (payload.blob == nullptr) return false;
  std::string version = openvino_version(api);
  if (version != payload.blob_openvino_version) {
    *reason = "it was made by OpenVINO " + payload.blob_openvino_version + ", this is " + version;
    return false;
  }
  if (const std::string* key = added_property(payload, properties)) {
    *reason = "this runtime compiles with " + *key + ", which the blob was not compiled with";
    return false;
  }
  Properties settings;
  std::copy_if(properties.begin(), properties.end(), std::back_inserter(settings),
               [](const auto& property) { return property.first != kCacheDirKey; });
  ov_core_t* core = import_core(api, payload.device, settings, reason);
  if (core == nullptr) return false;
  std::string name = device_name(api, core, payload.device.c_str());
  if (name != payload.blob_device_name) {
    *reason = "it was compiled for the " + payload.device + " device '" +
        payload.blob_device_name + "', this one is '" + name + "'";
    return false;
  }
  ov_status_e status = api.ov_core_import_model(core, payload.blob, payload.blob_size,
                                                payload.device.c_str(), compiled);
  if (status != OK) {
    *reason = "OpenVINO cannot import it: " + api.describe(status);
    return false;
  }
  return true;
}

}  // namespace ov_executorch
