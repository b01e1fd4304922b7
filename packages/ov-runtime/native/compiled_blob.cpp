#include "compiled_blob.h"

#include <algorithm>
#include <vector>


namespace ov_executorch {
namespace {

constexpr const char* kCacheDirKey = "CACHE_DIR";  // the core's; an import reads no cache

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

// Sets `properties` (but the cache folder) on `core` for `device`, then imports the blob.
bool import_on(const OpenvinoApi& api, ov_core_t* core, const PayloadView& payload,
               const Properties& properties, ov_compiled_model_t** compiled,
               std::string* reason) {
  const char* device = payload.device.c_str();
  for (const auto& [key, value] : properties) {
    if (key == kCacheDirKey) continue;
    // Its variadic arguments are one key and one value per call.
    ov_status_e status = api.ov_core_set_property(core, device, key.c_str(), value.c_str());
    if (status != OK) {
      *reason = "cannot set " + key + "=" + value + " for it: " + api.describe(status);
      return false;
    }
  }
  ov_status_e status =
      api.ov_core_import_model(core, payload.blob, payload.blob_size, device, compiled);
  if (status != OK) {
    *reason = "OpenVINO cannot import it: " + api.describe(status);
    return false;
  }
  return true;
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
  ov_core_t* core = nullptr;
  ov_status_e status = api.ov_core_create(&core);
  if (status != OK) {
    *reason = "cannot create a core to import it: " + api.describe(status);
    return false;
  }
  std::string name = device_name(api, core, payload.device.c_str());
  bool imported = false;
  if (name != payload.blob_device_name) {
    *reason = "it was compiled for the " + payload.device + " device '" +
        payload.blob_device_name + "', this one is '" + name + "'";
  } else {
    imported = import_on(api, core, payload, properties, compiled, reason);
  }
  api.ov_core_free(core);  // the compiled model keeps the plugin it needs
  return imported;
}

}  // namespace ov_executorch
