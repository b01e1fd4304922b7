// The C functions of the backend library that the Python package calls
// through ctypes (the ov_runtime.native package). Strings returned as const char* live as
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
// "" for a dtype a delegate does not take: the dtype table this library binds
// delegate arguments with, so tools can check it against ov_spec.DELEGATE_DTYPES
// (the Python package's native_element_type does).
OV_EXECUTORCH_EXPORT const char* ov_executorch_element_type(int scalar_type);

// The payload checksum: XXH3-64 (seed 0) of `size` bytes at `data`, any size
// (`data` may be null when `size` is 0), as the runtime verifies it and the
// xxhash package's xxh3_64 computes it at lowering. Part of the library's
// interface: a tool can check a payload (the checksum field at offset 80
// against the bytes from offset 88 on) without Python.
OV_EXECUTORCH_EXPORT uint64_t ov_executorch_checksum(const uint8_t* data, size_t size);

// Reads and checks a delegate payload (its processed bytes) as a delegate's
// init does before OpenVINO reads any of it: layout, checksum, flags, the
// bounds of its XML and its signature against the IR. Compiles nothing.
// Returns 0 when init would hand it to OpenVINO, else an ExecuTorch Error code
// with the reason as the thread's last error (ov_executorch_take_last_error).
OV_EXECUTORCH_EXPORT int ov_executorch_check_payload(const void* data, size_t size);

// The OpenVINO properties a delegate of this payload compiles with in this
// process, one "KEY=VALUE" line each: the payload's own, plus what only the
// machine that loads it knows (compile_properties in compiled_model.h: the
// default model cache folder, LP_TRANSFORMS_MODE=NO for wide int8 weights on a
// CPU without VNNI). -1 when the payload is refused, with the reason as the
// thread's last error. Lets tools compile a payload as the runtime does
// without re-deriving these rules.
OV_EXECUTORCH_EXPORT long ov_executorch_compile_properties(const void* data, size_t size,
                                                           char* buffer, size_t buffer_size);

// 1 where this CPU computes OpenVINO's u8 x s8 int8 products exactly for any
// 8-bit values (VNNI, or not x86), else 0: a delegate with wide int8 weights
// then compiles without the CPU plugin's low-precision transformations.
OV_EXECUTORCH_EXPORT int ov_executorch_int8_products_exact();

// The record of the index-th delegate alive in this process, oldest first
// ("device=CPU INFERENCE_PRECISION_HINT=f32"); -1 when fewer are alive.
OV_EXECUTORCH_EXPORT long ov_executorch_compiled_delegate(size_t index, char* buffer, size_t size);

// The last backend error of the calling thread, cleared when it fits in
// `buffer`; 0 when there is none.
OV_EXECUTORCH_EXPORT long ov_executorch_take_last_error(char* buffer, size_t size);

// Running programs (runner.h). A value crosses the boundary as one struct:
// a tensor's logical sizes and dim order with a pointer to its data (not
// copied), or a scalar.
#define OV_EXECUTORCH_MAX_RANK 16
// A value's kind: the tag ExecuTorch's program schema gives it (the KernelTypes
// union of program.fbs), so a kind reads the same in a .pte and across this
// interface.
enum { OV_EXECUTORCH_INT = 2, OV_EXECUTORCH_BOOL = 3, OV_EXECUTORCH_DOUBLE = 4, OV_EXECUTORCH_TENSOR = 5 };

typedef struct {
  int32_t kind;   // OV_EXECUTORCH_TENSOR, _INT, _DOUBLE or _BOOL
  int32_t dtype;  // a tensor's ExecuTorch ScalarType code
  int64_t rank;
  int64_t sizes[OV_EXECUTORCH_MAX_RANK];
  uint8_t dim_order[OV_EXECUTORCH_MAX_RANK];
  void* data;     // a tensor's data, in its dim order
  size_t nbytes;  // a tensor's data size (outputs)
  int64_t integer;  // an int or bool
  double real;      // a double
} ov_executorch_value;

typedef struct ov_executorch_runner ov_executorch_runner;

// sizeof(ov_executorch_value), so that a binding that mirrors the struct (the
// Python package's ctypes Value) can check its layout before any call.
OV_EXECUTORCH_EXPORT size_t ov_executorch_value_size(void);

// Reads and verifies the program in `size` bytes at `data` (kept alive by the
// caller) into *runner; returns an ExecuTorch Error code (0 for Ok), with
// *runner NULL unless Ok. Its methods load with ov_executorch_runner_load_method.
// `data_map` (kept alive by the caller; NULL for none) is a data file (.ptd)
// of `data_map_size` bytes holding named data the program keeps outside it,
// such as its delegates' weights.
// With `etdump` non-zero, the program records ExecuTorch's events (method
// loads and calls, and this backend's delegate events, profiling.h) in an
// ETDump, which ov_executorch_runner_write_etdump writes.
OV_EXECUTORCH_EXPORT int ov_executorch_runner_load(const void* data, size_t size,
                                                   const void* data_map, size_t data_map_size,
                                                   int etdump, ov_executorch_runner** runner);
OV_EXECUTORCH_EXPORT void ov_executorch_runner_free(ov_executorch_runner* runner);

// Each returns an ExecuTorch Error code (0 for Ok); it clears the thread's
// last error first, so a delegate's reason found there after a failure is this
// call's (ov_executorch_take_last_error).
// Loads `method`, handing this backend's delegates `count` load-time options
// (keys and text values; ExecuTorch's LoadBackendOptionsMap for this backend's
// id): "device" or an OpenVINO property name, each overriding the payload's
// value. `keys` and `values` may be NULL when `count` is 0.
OV_EXECUTORCH_EXPORT int ov_executorch_runner_load_method(ov_executorch_runner* runner,
                                                          const char* method,
                                                          const char* const* keys,
                                                          const char* const* values,
                                                          size_t count);
// Writes the events recorded since the program loaded (or since the last
// write) as an ETDump file at `path`, then records anew. NotSupported for a
// runner loaded without an ETDump; AccessFailed when the file cannot be written.
OV_EXECUTORCH_EXPORT int ov_executorch_runner_write_etdump(ov_executorch_runner* runner,
                                                           const char* path);
// Runs `method` on `count` inputs and describes its outputs in `outputs`, which
// has room for `capacity` (the method's output count); `*num_outputs` is the
// number written. An output's data stays valid until the next execute.
OV_EXECUTORCH_EXPORT int ov_executorch_runner_execute(ov_executorch_runner* runner,
                                                      const char* method,
                                                      const ov_executorch_value* inputs,
                                                      size_t count, ov_executorch_value* outputs,
                                                      size_t capacity, size_t* num_outputs);
