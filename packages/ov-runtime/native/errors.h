// The backend's log lines, every one escaped (see printable), and its errors:
// logged through ExecuTorch's log and kept, one per thread, so that a caller that only sees an ExecuTorch error code can ask for
// the reason (ov_executorch_take_last_error in c_api.h, which the Python
// facade reads).
#pragma once

#include <cstddef>
#include <string>

namespace ov_executorch {

// The most bytes of a message that are logged and kept.
constexpr size_t kMaxMessageBytes = 4096;

// `text` as valid UTF-8: each byte that does not start a valid sequence is
// written as \xNN, and text past kMaxMessageBytes is cut with a note of how
// much was left out.
std::string printable(const std::string& text);

// Logs "OpenVINO: <message>" as an ExecuTorch error and keeps the message as
// the process's last backend error. printf-style; the message is made
// printable() first.
void log_error(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Logs "OpenVINO: <message>" at ExecuTorch's Info level, made printable()
// first like an error's, and keeps nothing.
void log_info(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Forgets this thread's last error, so that a reason read after a call is that call's.
void clear_last_error();

}  // namespace ov_executorch
