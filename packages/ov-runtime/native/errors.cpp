#include "errors.h"

#include <executorch/runtime/platform/log.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "c_api.h"

namespace ov_executorch {
namespace {

constexpr size_t kLogLineBytes = 200;

// Per thread: each caller gets the reason of its own failure, and Python
// threads running programs in parallel do not see each other's.
thread_local std::string last_error;

// Length of the valid UTF-8 sequence at text[i], or 0 when the bytes there are
// not one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF).
size_t utf8_sequence(const std::string& text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  unsigned char second = byte(i + 1);
  if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second >= 0xA0) ||
      (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second >= 0x90)) {
    return 0;
  }
  return length;
}

}  // namespace

std::string printable(const std::string& text) {
  std::string result;
  size_t i = 0;
  while (i < text.size() && result.size() < kMaxMessageBytes) {
    size_t length = utf8_sequence(text, i);
    if (length == 0) {
      char escaped[5];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", static_cast<unsigned char>(text[i]));
      result += escaped;
      i += 1;
    } else {
      result.append(text, i, length);
      i += length;
    }
  }
  if (i < text.size()) {
    result += "... (" + std::to_string(text.size() - i) + " more bytes)";
  }
  return result;
}

namespace {

// The printf-style message, made printable(): ExecuTorch's Python bindings
// abort on a log line that is not UTF-8, and OpenVINO and payloads quote text
// (an IR byte, a device string, a blob's version) verbatim.
std::string format_printable(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string message(length > 0 ? static_cast<size_t>(length) : 0, '\0');
  if (length > 0) std::vsnprintf(message.data(), message.size() + 1, format, args);
  return printable(message);
}

// ExecuTorch cuts a log line at a few hundred bytes: a long message goes in
// several lines, each cut at a character boundary.
void emit(bool is_error, const std::string& message) {
  for (size_t start = 0; start < message.size();) {
    size_t end = std::min(message.size(), start + kLogLineBytes);
    while (end < message.size() && (static_cast<unsigned char>(message[end]) & 0xC0) == 0x80) {
      --end;
    }
    const char* prefix = start == 0 ? ":" : " (continued):";
    std::string line = message.substr(start, end - start);
    if (is_error) {
      ET_LOG(Error, "OpenVINO%s %s", prefix, line.c_str());
    } else {
      ET_LOG(Info, "OpenVINO%s %s", prefix, line.c_str());
    }
    start = end;
  }
}

}  // namespace

void log_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  last_error = format_printable(format, args);
  va_end(args);
  emit(true, last_error);
}

void log_info(const char* format, ...) {
  va_list args;
  va_start(args, format);
  emit(false, format_printable(format, args));
  va_end(args);
}

void clear_last_error() { last_error.clear(); }

}  // namespace ov_executorch

long ov_executorch_take_last_error(char* buffer, size_t size) {
  std::string& error = ov_executorch::last_error;
  long length = static_cast<long>(error.size());
  if (buffer && size > 0) {
    size_t n = std::min(size - 1, error.size());
    std::memcpy(buffer, error.data(), n);
    buffer[n] = '\0';
    if (n == error.size()) error.clear();
  }
  return length;
}
