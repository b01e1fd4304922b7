// What this CPU's int8 instructions compute exactly.
#pragma once

namespace ov_executorch {

// Whether OpenVINO's CPU plugin computes u8 x s8 products of any 8-bit
// values exactly here: true on x86 CPUs with VNNI (AVX512-VNNI, which AMX
// CPUs have too, or AVX-VNNI) and on other architectures. oneDNN's int8
// kernels for x86 CPUs without VNNI add two products into a saturating int16
// (vpmaddubsw), which overflows once weights exceed +-64.
bool int8_products_exact();

}  // namespace ov_executorch
