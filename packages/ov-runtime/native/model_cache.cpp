#include "model_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "errors.h"

#ifndef OV_EXECUTORCH_NO_CACHE
#error "OV_EXECUTORCH_NO_CACHE must be defined by the build (read from ov_spec)"
#endif

namespace ov_executorch {
namespace {

std::optional<std::string> configured_folder() {
  const char* chosen = std::getenv(kCacheDirVariable);
  if (chosen && chosen[0] != '\0') {  // an empty value means unset, as in a compile spec
    if (std::string(chosen) == OV_EXECUTORCH_NO_CACHE) return std::nullopt;
    return std::string(chosen);
  }
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/ov_executorch";
  const char* home = std::getenv("HOME");
  if (home && home[0] != '\0') return std::string(home) + "/.cache/ov_executorch";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> default_cache_dir() {
  std::optional<std::string> folder = configured_folder();
  if (!folder) return std::nullopt;
  std::error_code error;
  std::filesystem::create_directories(*folder, error);
  if (error || access(folder->c_str(), W_OK | X_OK) != 0) {
    log_info("no model cache: cannot write the folder %s (%s); set %s to another folder, or to %s",
             folder->c_str(), error ? error.message().c_str() : "not writable",
             kCacheDirVariable, OV_EXECUTORCH_NO_CACHE);
    return std::nullopt;
  }
  return folder;
}

}  // namespace ov_executorch
