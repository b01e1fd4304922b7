#include "openvino_api.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "errors.h"

namespace ov_executorch {
namespace {

constexpr const char* kLibraryOverride = "OV_EXECUTORCH_OPENVINO_C_LIB";

// The OpenVINO C libraries in `folder`, the newest version first.
std::vector<std::string> libraries_in(const std::filesystem::path& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    if (entry.path().filename().string().rfind("libopenvino_c.so", 0) == 0) {
      found.push_back(entry.path().string());
    }
  }
  std::sort(found.rbegin(), found.rend());
  return found;
}

// Candidate library paths, most specific first.
std::vector<std::string> candidate_libraries() {
  if (const char* path = std::getenv(kLibraryOverride); path && *path) {
    return {path};  // An explicit choice is never second-guessed.
  }
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&candidate_libraries), &info) && info.dli_fname) {
    // The openvino wheel beside this library's package: the nearest folder
    // above <site-packages>/ov_runtime/native/ that holds openvino/libs/.
    for (fs::path folder = fs::path(info.dli_fname).parent_path(); found.empty();
         folder = folder.parent_path()) {
      found = libraries_in(folder / "openvino" / "libs");
      if (folder == folder.root_path() || folder.empty()) break;
    }
  }
#ifdef OV_EXECUTORCH_OPENVINO_LIBS
  // A library built outside the package (add_subdirectory in an application)
  // falls back to the openvino wheel it was built against.
  if (found.empty()) found = libraries_in(OV_EXECUTORCH_OPENVINO_LIBS);
#endif
  found.emplace_back("libopenvino_c.so");
  return found;
}

// The library that marks Divide nodes: beside this one (installed), else where the
// build put it (a static archive inside an application). It links the OpenVINO C++
// library of the wheel it was built with (OV_EXECUTORCH_OPENVINO_SONAME), so it is
// opened only where OpenVINO's C library has already brought that same one in:
// another OpenVINO in the process would be a second runtime.
void load_division_marker(OpenvinoApi& api) {
#ifdef OV_EXECUTORCH_OPENVINO_SONAME
  constexpr const char* kMissing = "; a Divide may be computed as a product by the reciprocal";
  if (dlopen(OV_EXECUTORCH_OPENVINO_SONAME, RTLD_NOW | RTLD_NOLOAD) == nullptr) {
    log_info("the OpenVINO loaded is not the one this backend was built with (%s)%s",
             OV_EXECUTORCH_OPENVINO_SONAME, kMissing);
    return;
  }
  std::vector<std::string> paths;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_division_marker), &info) && info.dli_fname) {
    paths.push_back(std::filesystem::path(info.dli_fname).parent_path() /
                    "libov_executorch_divisions.so");
  }
  paths.emplace_back(OV_EXECUTORCH_DIVISIONS_LIBRARY);
  std::string tried;
  for (const auto& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      tried += " " + path + ": " + dlerror() + ";";
      continue;
    }
    api.keep_exact_divisions = reinterpret_cast<decltype(api.keep_exact_divisions)>(
        dlsym(handle, "ov_executorch_keep_exact_divisions"));
    if (api.keep_exact_divisions != nullptr) return;
    tried += " " + path + ": no ov_executorch_keep_exact_divisions;";
  }
  log_info("cannot load the Divide marker (%s)%s", tried.c_str(), kMissing);
#else
  (void)api;
#endif
}

struct Loaded {
  OpenvinoApi api;
  ov_core_t* core = nullptr;
  std::string error;
};

bool load_symbols(void* handle, OpenvinoApi& api, std::string& error) {
#define OV_EXECUTORCH_LOAD(name)                                              \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name));      \
  if (api.name == nullptr) {                                                  \
    error = "OpenVINO's C library lacks the function " #name;                 \
    return false;                                                             \
  }
  OV_EXECUTORCH_API_FUNCTIONS(OV_EXECUTORCH_LOAD)
#undef OV_EXECUTORCH_LOAD
  return true;
}

Loaded load() {
  Loaded loaded;
  std::string tried;
  for (const auto& path : candidate_libraries()) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      tried += "\n  " + path + ": " + dlerror();
      continue;
    }
    if (!load_symbols(handle, loaded.api, loaded.error)) {
      loaded.error += " (" + path + ")";
      return loaded;
    }
    load_division_marker(loaded.api);
    ov_status_e status = loaded.api.ov_core_create(&loaded.core);
    if (status != OK) {
      loaded.error = "ov_core_create failed: " + loaded.api.describe(status);
      loaded.core = nullptr;
    }
    return loaded;
  }
  loaded.error = std::string("OpenVINO's C library could not be loaded; install the openvino "
                             "package (2025.1 or newer) or set ") +
      kLibraryOverride + " to the path of libopenvino_c.so. Tried:" + tried;
  return loaded;
}

const Loaded& loaded() {
  static const Loaded instance = load();  // one core per process
  return instance;
}

}  // namespace

std::string OpenvinoApi::describe(ov_status_e status) const {
  std::string text = ov_get_error_info ? ov_get_error_info(status) : "unknown status";
  // The C API records a message only for the exceptions it catches; a
  // parameter check returns INVALID_C_PARAM and leaves an older message there.
  if (ov_get_last_err_msg && status != INVALID_C_PARAM) {
    const char* message = ov_get_last_err_msg();
    if (message && *message) {
      text += ": ";
      text += message;
    }
  }
  return text;
}

const OpenvinoApi* openvino_api(std::string* error) {
  const Loaded& state = loaded();
  if (state.core == nullptr) {
    if (error) *error = state.error;
    return nullptr;
  }
  return &state.api;
}

ov_core_t* openvino_core() {
  return loaded().core;
}

}  // namespace ov_executorch
