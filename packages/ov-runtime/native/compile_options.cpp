#include "compile_options.h"

#include <cstring>
#include <map>

namespace ov_executorch {
namespace {

constexpr const char* kKnownKeys = "device, inference_precision, cache_dir";

}  // namespace

// Whether every device the string names is the CPU ("CPU", "AUTO:CPU"), as
// ov_spec.runs_on_cpu_only decides.
static bool runs_on_cpu_only(const std::string& device) {
  size_t colon = device.find(':');
  std::string names = colon == std::string::npos ? device : device.substr(colon + 1);
  size_t start = 0;
  while (true) {
    size_t end = names.find(',', start);
    std::string name = names.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (name.substr(0, name.find('.')) != "CPU") return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

std::string CompileOptions::effective_precision() const {
  if (!inference_precision.empty()) return inference_precision;
  return runs_on_cpu_only(device) ? "f32" : "";
}

std::vector<std::pair<std::string, std::string>> CompileOptions::properties() const {
  std::vector<std::pair<std::string, std::string>> result;
  std::string precision = effective_precision();
  if (!precision.empty()) result.emplace_back("INFERENCE_PRECISION_HINT", precision);
  if (!cache_dir.empty()) result.emplace_back("CACHE_DIR", cache_dir);
  return result;
}

bool parse_compile_options(
    executorch::runtime::ArrayRef<executorch::runtime::CompileSpec> specs,
    CompileOptions* options,
    std::string* error) {
  std::map<std::string, std::string> last;  // the last entry of each key wins
  for (const auto& spec : specs) {
    std::string key = spec.key ? spec.key : "";
    if (key != "device" && key != "inference_precision" && key != "cache_dir") {
      *error = "unknown compile spec key '" + key + "'; known keys: " + kKnownKeys;
      return false;
    }
    last[key] = std::string(static_cast<const char*>(spec.value.buffer), spec.value.nbytes);
  }
  CompileOptions parsed;
  if (!last["device"].empty()) parsed.device = last["device"];
  parsed.inference_precision = last["inference_precision"];
  parsed.cache_dir = last["cache_dir"];
  const std::string& precision = parsed.inference_precision;
  if (!precision.empty() && precision != "f32" && precision != "f16" && precision != "bf16") {
    *error = "compile spec 'inference_precision' has the value '" + precision +
        "'; expected one of f32, f16, bf16";
    return false;
  }
  *options = parsed;
  return true;
}

}  // namespace ov_executorch
