// The delegate's compile specs, read with the same rules as ov_spec: the last
// entry of a key wins, an empty value means the default, values are UTF-8.
#pragma once

#include <executorch/runtime/backend/interface.h>

#include <string>
#include <utility>
#include <vector>

namespace ov_executorch {

struct CompileOptions {
  std::string device = "CPU";
  std::string inference_precision;  // empty: the default
  std::string cache_dir;            // empty: no model cache

  // The precision OpenVINO is asked for: the explicit one, else f32 when the
  // device string names only the CPU (OpenVINO's CPU plugin would pick bf16
  // or f16), else none.
  std::string effective_precision() const;

  // OpenVINO properties (key, value) to compile with.
  std::vector<std::pair<std::string, std::string>> properties() const;
};

// Returns false and sets *error on an unknown key or a value outside what the
// key allows, after applying the rules above (so a bad value followed by an
// empty one is not an error).
bool parse_compile_options(
    executorch::runtime::ArrayRef<executorch::runtime::CompileSpec> specs,
    CompileOptions* options,
    std::string* error);

}  // namespace ov_executorch
