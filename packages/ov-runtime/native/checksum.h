// The payload checksum: XXH3-64 (seed 0, default secret) of the bytes after
// the header, as the xxhash package computes it at lowering. Any length,
// including none: the reader's other checks, not the checksum, refuse a
// payload too short to be one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ov_executorch {

// XXH3-64 of `size` bytes at `data` (which may be null when `size` is 0).
uint64_t checksum(const uint8_t* data, size_t size);

}  // namespace ov_executorch
