#include "cpu_features.h"

#include "c_api.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace ov_executorch {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// The register state the operating system saves (XCR0), which says whether
// AVX and AVX-512 instructions may run at all.
unsigned long long enabled_state() {
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) return 0;
  unsigned int low = 0, high = 0;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (static_cast<unsigned long long>(high) << 32) | low;
}

bool detect_vnni() {
  constexpr unsigned long long kAvxState = 0x6;     // SSE and AVX registers
  constexpr unsigned long long kAvx512State = 0xE6;  // and the AVX-512 ones
  constexpr unsigned int kAvx512Vnni = 1u << 11;     // CPUID.(7,0):ECX
  constexpr unsigned int kAvxVnni = 1u << 4;         // CPUID.(7,1):EAX
  unsigned long long state = enabled_state();
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  if ((ecx & kAvx512Vnni) && (state & kAvx512State) == kAvx512State) return true;
  if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
  return (eax & kAvxVnni) && (state & kAvxState) == kAvxState;
}
#endif

}  // namespace

bool int8_products_exact() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool exact = detect_vnni();
  return exact;
#else
  return true;
#endif
}

}  // namespace ov_executorch

int ov_executorch_int8_products_exact() { return ov_executorch::int8_products_exact() ? 1 : 0; }
