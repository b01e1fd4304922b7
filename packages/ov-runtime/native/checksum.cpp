// The payload checksum, XXH3-64 with seed 0 and the default secret: what the
// xxhash package's xxh3_64 writes at lowering. Where the build found the
// xxHash library (CMakeLists.txt defines OV_EXECUTORCH_SYSTEM_XXHASH), its
// XXH3_64bits computes it; otherwise the code below does, written from the
// xxHash specification (doc/xxhash_spec.md of the xxHash repository), for
// every input length: XXH3 hashes 0-16, 17-240 and longer inputs differently.

#include "checksum.h"

#include "c_api.h"

#if defined(OV_EXECUTORCH_SYSTEM_XXHASH)

#include <xxhash.h>

namespace ov_executorch {

uint64_t checksum(const uint8_t* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace ov_executorch

#else

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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
constexpr uint64_t kPrimeMx2 = 0x9FB21C651E98DF25ULL;

// The default secret. Every length reads some of it: the short paths a few
// words, the medium ones 16-byte windows, the long one all of it.
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

// Little-endian reads (of the input and of the secret alike); the backend runs
// on little-endian x86-64 and ARM64.
uint64_t read64(const uint8_t* bytes) {
  uint64_t value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

uint32_t read32(const uint8_t* bytes) {
  uint32_t value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

uint64_t rotl64(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

// The low 64 bits of the full 128-bit product folded with the high ones.
uint64_t fold_multiply(uint64_t a, uint64_t b) {
  unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

// The two final mixes of the specification: XXH3's own, and XXH64's (which
// the 0-3 byte paths use).
uint64_t avalanche(uint64_t x) {
  x ^= x >> 37;
  x *= kPrimeMx1;
  return x ^ (x >> 32);
}

uint64_t avalanche_xxh64(uint64_t x) {
  x ^= x >> 33;
  x *= kPrime64_2;
  x ^= x >> 29;
  x *= kPrime64_3;
  return x ^ (x >> 32);
}

// Inputs of 0 to 16 bytes: a few words of the input (overlapping when the
// length is not a multiple of their size) against a few of the secret. With
// seed 0 the specification's seed terms all vanish.
uint64_t hash_0_to_16(const uint8_t* data, size_t size) {
  if (size > 8) {
    uint64_t low = (read64(kSecret + 24) ^ read64(kSecret + 32)) ^ read64(data);
    uint64_t high = (read64(kSecret + 40) ^ read64(kSecret + 48)) ^ read64(data + size - 8);
    return avalanche(size + __builtin_bswap64(low) + high + fold_multiply(low, high));
  }
  if (size >= 4) {
    uint64_t combined = read32(data + size - 4) | (static_cast<uint64_t>(read32(data)) << 32);
    uint64_t value = (read64(kSecret + 8) ^ read64(kSecret + 16)) ^ combined;
    value ^= rotl64(value, 49) ^ rotl64(value, 24);
    value *= kPrimeMx2;
    value ^= (value >> 35) + size;
    value *= kPrimeMx2;
    return value ^ (value >> 28);
  }
  if (size > 0) {
    // The last, the first and the middle byte, with the length between them.
    uint32_t combined = data[size - 1] | static_cast<uint32_t>(size) << 8 |
                        static_cast<uint32_t>(data[0]) << 16 |
                        static_cast<uint32_t>(data[size >> 1]) << 24;
    return avalanche_xxh64((read32(kSecret) ^ read32(kSecret + 4)) ^ combined);
  }
  return avalanche_xxh64(read64(kSecret + 56) ^ read64(kSecret + 64));
}

// The medium paths' building block: 16 bytes of input against 16 of the secret.
uint64_t mix16(const uint8_t* data, const uint8_t* secret) {
  return fold_multiply(read64(data) ^ read64(secret), read64(data + 8) ^ read64(secret + 8));
}

// Inputs of 17 to 128 bytes: pairs of 16-byte chunks, one counted from the
// start and one from the end, until the pairs cover the input (they overlap
// in the middle unless the length is a multiple of 32).
uint64_t hash_17_to_128(const uint8_t* data, size_t size) {
  uint64_t acc = size * kPrime64_1;
  for (size_t i = (size - 1) / 32 + 1; i-- > 0;) {
    acc += mix16(data + 16 * i, kSecret + 32 * i);
    acc += mix16(data + size - 16 * (i + 1), kSecret + 32 * i + 16);
  }
  return avalanche(acc);
}

// Inputs of 129 to 240 bytes: the first 128 bytes in 16-byte chunks, a mix,
// the remaining whole chunks against the secret from byte 3, and the last 16
// bytes against the secret at 119 (the specification's offsets).
uint64_t hash_129_to_240(const uint8_t* data, size_t size) {
  uint64_t acc = size * kPrime64_1;
  for (size_t i = 0; i < 8; ++i) {
    acc += mix16(data + 16 * i, kSecret + 16 * i);
  }
  acc = avalanche(acc);
  for (size_t i = 8; i < size / 16; ++i) {
    acc += mix16(data + 16 * i, kSecret + 16 * (i - 8) + 3);
  }
  acc += mix16(data + size - 16, kSecret + 119);
  return avalanche(acc);
}

// Inputs over 240 bytes: 8 accumulators, fed 64-byte stripes a 1024-byte
// block at a time and scrambled after each block. The specification's
// accumulate() and round_scramble(), one lane at a time.
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
// The same, four lanes a vector (about 1.5x the speed of the loops above):
// the weights make the long path the one whose speed shows in a first load.
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

// The 8 accumulators folded pairwise against the secret from byte 11.
uint64_t merge(const uint64_t* acc, uint64_t start) {
  const uint8_t* secret = kSecret + 11;
  uint64_t result = start;
  for (size_t i = 0; i < 4; ++i) {
    result += fold_multiply(acc[2 * i] ^ read64(secret + 16 * i),
                            acc[2 * i + 1] ^ read64(secret + 16 * i + 8));
  }
  return avalanche(result);
}

uint64_t hash_long(const uint8_t* data, size_t size) {
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
  // The last 64 bytes, overlapping the stripes before them, at the secret's
  // end less 7 bytes.
  accumulate(acc, data + size - kStripe, kSecret + kSecretSize - kStripe - 7);
  return merge(acc, static_cast<uint64_t>(size) * kPrime64_1);
}

}  // namespace

uint64_t checksum(const uint8_t* data, size_t size) {
  if (size <= 16) return hash_0_to_16(data, size);
  if (size <= 128) return hash_17_to_128(data, size);
  if (size <= 240) return hash_129_to_240(data, size);
  return hash_long(data, size);
}

}  // namespace ov_executorch

#endif  // OV_EXECUTORCH_SYSTEM_XXHASH

uint64_t ov_executorch_checksum(const uint8_t* data, size_t size) {
  return ov_executorch::checksum(data, size);
}
