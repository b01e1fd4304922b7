#include "model_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "errors.h"

namespace ov_executorch {
namespace {

std::optional<std::string> configured_folder() {
  if (const char* chosen = std::getenv(kCacheDirVariable)) {
    std::string folder(chosen);
    if (folder.empty() || folder == "none") return std::nullopt;
    return folder;
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
    log_info("no model cache: cannot write the folder %s (%s); set %s to another folder, or to none",
             folder->c_str(), error ? error.message().c_str() : "not writable",
             kCacheDirVariable);
    return std::nullopt;
  }
  return folder;
}

}  // namespace ov_executorch
