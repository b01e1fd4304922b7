// XXH3-64 for long inputs, written from the xxHash specification
// (doc/xxhash_spec.md: "XXH3 Algorithm Description (for large inputs)").

#include "checksum.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "c_api.h"

namespace ov_executorch {
namespace {

constexpr uint64_t kPrime32_1 = 0x9E3779B1U;
constexpr uint64_t kPrime32_2 = 0x85EBCA77U;
constexpr uint64_t kPrime32_3 = 0xC2B2AE3DU;
constexpr uint64_t kPrime64_1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime64_2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime64_3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kPrime64_4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kPrime64_5 = 0x27D4EB2F165667C5ULL;
constexpr uint64_t kPrimeMx1 = 0x165667919E3779F9ULL;

constexpr size_t kSecretSize = 192;
constexpr uint8_t kSecret[kSecretSize] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};
constexpr size_t kStripe = 64;
constexpr size_t kStripesPerBlock = (kSecretSize - kStripe) / 8;
constexpr size_t kBlock = kStripe * kStripesPerBlock;

// Little-endian reads; the backend runs on little-endian x86-64 and ARM64.
uint64_t read64(const uint8_t* bytes) {
  uint64_t value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

// The specification's accumulate() and round_scramble(), one lane at a time.
void accumulate(uint64_t* acc, const uint8_t* stripe, const uint8_t* secret) {
  for (size_t i = 0; i < 8; ++i) {
    uint64_t word = read64(stripe + 8 * i);
    uint64_t value = word ^ read64(secret + 8 * i);
    acc[i ^ 1] += word;
    acc[i] += (value & 0xFFFFFFFFULL) * (value >> 32);
  }
}

void scramble(uint64_t* acc) {
  const uint8_t* secret = kSecret + kSecretSize - kStripe;
  for (size_t i = 0; i < 8; ++i) {
    acc[i] ^= acc[i] >> 47;
    acc[i] ^= read64(secret + 8 * i);
    acc[i] *= kPrime32_1;
  }
}

#if defined(__x86_64__)
// The same, four lanes a vector (about 1.5x the speed of the loops above).
__attribute__((target("avx2"))) void accumulate_avx2(__m256i* acc, const uint8_t* stripe,
                                                     const uint8_t* secret) {
  for (size_t j = 0; j < 2; ++j) {
    __m256i words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(stripe) + j);
    __m256i key = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(secret) + j);
    __m256i value = _mm256_xor_si256(words, key);
    __m256i product = _mm256_mul_epu32(value, _mm256_shuffle_epi32(value, _MM_SHUFFLE(0, 3, 0, 1)));
    __m256i swapped = _mm256_shuffle_epi32(words, _MM_SHUFFLE(1, 0, 3, 2));
    acc[j] = _mm256_add_epi64(acc[j], _mm256_add_epi64(product, swapped));
  }
}

__attribute__((target("avx2"))) void scramble_avx2(__m256i* acc) {
  const __m256i* secret = reinterpret_cast<const __m256i*>(kSecret + kSecretSize - kStripe);
  const __m256i prime = _mm256_set1_epi32(static_cast<int>(kPrime32_1));
  for (size_t j = 0; j < 2; ++j) {
    __m256i value = _mm256_xor_si256(acc[j], _mm256_srli_epi64(acc[j], 47));
    value = _mm256_xor_si256(value, _mm256_loadu_si256(secret + j));
    __m256i low = _mm256_mul_epu32(value, prime);
    __m256i high = _mm256_mul_epu32(_mm256_srli_epi64(value, 32), prime);
    acc[j] = _mm256_add_epi64(low, _mm256_slli_epi64(high, 32));
  }
}

__attribute__((target("avx2"))) void accumulate_blocks_avx2(uint64_t* lanes, const uint8_t* data,
                                                            size_t blocks) {
  __m256i acc[2] = {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes)),
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes) + 1)};
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t n = 0; n < kStripesPerBlock; ++n) {
      accumulate_avx2(acc, data + b * kBlock + n * kStripe, kSecret + 8 * n);
    }
    scramble_avx2(acc);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), acc[0]);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes) + 1, acc[1]);
}
#endif

// Rounds over the whole blocks: accumulate every stripe, then scramble.
void accumulate_blocks(uint64_t* acc, const uint8_t* data, size_t blocks) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) {
    accumulate_blocks_avx2(acc, data, blocks);
    return;
  }
#endif
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t n = 0; n < kStripesPerBlock; ++n) {
      accumulate(acc, data + b * kBlock + n * kStripe, kSecret + 8 * n);
    }
    scramble(acc);
  }
}

uint64_t avalanche(uint64_t x) {
  x ^= x >> 37;
  x *= kPrimeMx1;
  return x ^ (x >> 32);
}

uint64_t merge(const uint64_t* acc, uint64_t start) {
  const uint8_t* secret = kSecret + 11;
  uint64_t result = start;
  for (size_t i = 0; i < 4; ++i) {
    unsigned __int128 product =
        static_cast<unsigned __int128>(acc[2 * i] ^ read64(secret + 16 * i)) *
        (acc[2 * i + 1] ^ read64(secret + 16 * i + 8));
    result += static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
  }
  return avalanche(result);
}

}  // namespace

uint64_t checksum(const uint8_t* data, size_t size) {
  uint64_t acc[8] = {kPrime32_3, kPrime64_1, kPrime64_2, kPrime64_3,
                     kPrime64_4, kPrime32_2, kPrime64_5, kPrime32_1};
  // Whole blocks, leaving the last one (even when full) to the final round.
  size_t blocks = (size - 1) / kBlock;
  accumulate_blocks(acc, data, blocks);
  const uint8_t* last = data + blocks * kBlock;
  size_t stripes = (size - blocks * kBlock - 1) / kStripe;
  for (size_t n = 0; n < stripes; ++n) {
    accumulate(acc, last + n * kStripe, kSecret + 8 * n);
  }
  accumulate(acc, data + size - kStripe, kSecret + kSecretSize - kStripe - 7);
  return merge(acc, static_cast<uint64_t>(size) * kPrime64_1);
}

}  // namespace ov_executorch

uint64_t ov_executorch_checksum(const uint8_t* data, size_t size) {
  return size < ov_executorch::kMinChecksummedBytes ? 0 : ov_executorch::checksum(data, size);
}
