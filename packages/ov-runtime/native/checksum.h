// The payload checksum: XXH3-64 (seed 0, default secret) of the bytes after
// the header, as the xxhash package computes it at lowering. Only inputs of
// more than 240 bytes are hashed; a payload is always longer (its IR alone is).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ov_executorch {

constexpr size_t kMinChecksummedBytes = 241;

// XXH3-64 of `size` bytes at `data`; `size` must be at least kMinChecksummedBytes.
uint64_t checksum(const uint8_t* data, size_t size);

}  // namespace ov_executorch
