// The C functions of the backend library that the Python package calls
// through ctypes (ov_runtime.backend). Strings returned as const char* live as
// long as the library; functions that fill a buffer copy NUL-terminated text
// (truncated to `size`) and return its full length.
#pragma once

#include <cstddef>
#include <cstdint>

#define OV_EXECUTORCH_EXPORT extern "C" __attribute__((visibility("default")))

// Why OpenVINO's runtime cannot be used in this process; "" when it can.
// Loads OpenVINO's C library on first use.
OV_EXECUTORCH_EXPORT const char* ov_executorch_unavailable_reason();

// Why the backend is not registered with ExecuTorch's runtime (for example,
// another library registered the same name first); "" when it is.
OV_EXECUTORCH_EXPORT const char* ov_executorch_registration_error();

// OpenVINO's element type name ("f32") for an ExecuTorch ScalarType code, or
// "" for a dtype a delegate does not take. Lets a test check this library's
// mapping against ov_spec's dtype table.
OV_EXECUTORCH_EXPORT const char* ov_executorch_element_type(int scalar_type);

// The payload checksum (XXH3-64) of `size` bytes at `data`, as the runtime
// verifies it; 0 when `size` is below the 241 bytes it takes. Lets a test check
// it against the xxhash package, and a benchmark time it.
OV_EXECUTORCH_EXPORT uint64_t ov_executorch_checksum(const uint8_t* data, size_t size);

// The record of the index-th delegate alive in this process, oldest first
// ("device=CPU INFERENCE_PRECISION_HINT=f32"); -1 when fewer are alive.
OV_EXECUTORCH_EXPORT long ov_executorch_compiled_delegate(size_t index, char* buffer, size_t size);

// The last backend error of this process, cleared when it fits in `buffer`;
// 0 when there is none.
OV_EXECUTORCH_EXPORT long ov_executorch_take_last_error(char* buffer, size_t size);
