#include "runtime_options.h"

#include <algorithm>
#include <array>
#include <variant>

namespace ov_executorch {

using executorch::runtime::BackendOption;
using executorch::runtime::kMaxOptionValueLength;
using executorch::runtime::Span;

namespace {

// An option's value as OpenVINO reads a property: text as it is, a number in
// decimal, a bool as YES or NO (OpenVINO's spelling of its boolean properties).
std::string as_text(const BackendOption& option) {
  if (const auto* text = std::get_if<std::array<char, kMaxOptionValueLength>>(&option.value)) {
    return std::string(text->data(), strnlen(text->data(), text->size()));
  }
  if (const auto* number = std::get_if<int>(&option.value)) return std::to_string(*number);
  return std::get<bool>(option.value) ? "YES" : "NO";
}

}  // namespace

bool apply_runtime_options(Span<const BackendOption> options, PayloadView* payload,
                           std::vector<std::string>* applied, std::string* error) {
  for (const BackendOption& option : options) {
    std::string key(option.key, strnlen(option.key, sizeof(option.key)));
    std::string value = as_text(option);
    if (key == kDeviceOption) {
      std::string repeated = repeated_device(value);
      if (!repeated.empty()) {
        *error = "the runtime option device='" + value + "' names the device '" + repeated +
            "' twice; name each device once";
        return false;
      }
      if (payload->device == value) continue;
      payload->device = value;
    } else {
      auto& properties = payload->properties;
      auto found = std::find_if(properties.begin(), properties.end(),
                                [&](const auto& property) { return property.first == key; });
      if (found == properties.end()) {
        properties.emplace_back(key, value);
      } else if (found->second == value) {
        continue;
      } else {
        found->second = value;
      }
    }
    applied->push_back(key);
  }
  return true;
}

}  // namespace ov_executorch
