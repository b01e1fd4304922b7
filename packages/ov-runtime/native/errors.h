// Errors of the backend: logged through ExecuTorch's log and kept, so that a
// caller that only sees an ExecuTorch error code can ask for the reason
// (ov_executorch_take_last_error in c_api.h, which the Python facade reads).
#pragma once

#include <cstddef>

namespace ov_executorch {

// Logs "OpenVINO: <message>" as an ExecuTorch error and keeps the message as
// the process's last backend error. printf-style.
void log_error(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ov_executorch
