// Reading and writing NumPy's .npy format (version 1.0 to 3.0, C order), the
// runner's file format for tensors.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ov_executorch::tools {

struct NpyArray {
  executorch::aten::ScalarType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // C order
};

// Reads `path`; on failure returns false with the reason in `error` (a bad
// header, Fortran order, a dtype ExecuTorch has no type for, a short file).
bool read_npy(const std::string& path, NpyArray* array, std::string* error);

// Writes `nbytes` bytes at `data` as an array of `dtype` and `shape` in C order.
bool write_npy(const std::string& path, executorch::aten::ScalarType dtype,
               const std::vector<int64_t>& shape, const void* data, size_t nbytes,
               std::string* error);

}  // namespace ov_executorch::tools
