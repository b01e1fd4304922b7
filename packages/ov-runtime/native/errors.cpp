#include "errors.h"

#include <executorch/runtime/platform/log.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "c_api.h"

namespace ov_executorch {
namespace {

// Function-local statics: log_error may run while other files' statics are
// still being constructed (a failed registration at load time).
std::mutex& last_error_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::string& last_error() {
  static std::string error;
  return error;
}

}  // namespace

void log_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string message(length > 0 ? static_cast<size_t>(length) : 0, '\0');
  if (length > 0) std::vsnprintf(message.data(), message.size() + 1, format, args);
  va_end(args);
  ET_LOG(Error, "OpenVINO: %s", message.c_str());
  std::lock_guard<std::mutex> lock(last_error_mutex());
  last_error() = std::move(message);
}

}  // namespace ov_executorch

long ov_executorch_take_last_error(char* buffer, size_t size) {
  std::lock_guard<std::mutex> lock(ov_executorch::last_error_mutex());
  std::string& error = ov_executorch::last_error();
  long length = static_cast<long>(error.size());
  if (buffer && size > 0) {
    size_t n = std::min(size - 1, error.size());
    std::memcpy(buffer, error.data(), n);
    buffer[n] = '\0';
    if (n == error.size()) error.clear();
  }
  return length;
}
