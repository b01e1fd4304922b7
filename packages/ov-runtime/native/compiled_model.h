// Reading a payload's IR and compiling it with the payload's device and
// OpenVINO properties, every one of them, as they are.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "openvino_api.h"
#include "payload.h"

namespace ov_executorch {

// The most OpenVINO properties a payload may carry.
constexpr size_t kMaxProperties = 16;

using Properties = std::vector<std::pair<std::string, std::string>>;

// OpenVINO's model cache folder: a property of the core, not of a compiled model.
constexpr const char* kCacheDirKey = "CACHE_DIR";

// The properties `payload` compiles with: its own (an empty CACHE_DIR, which
// the compile spec cache_dir=none becomes, is OpenVINO's own "no cache"), with
// the default model cache folder (default_cache_dir) as CACHE_DIR when it
// carries none; plus LP_TRANSFORMS_MODE=NO
// when it has wide int8 weights (kWideInt8Weights), compiles for the CPU, and
// this CPU's int8 products are not exact (int8_products_exact). That mode
// turns off the CPU plugin's low-precision transformations: the int8 layers
// compute in float32 on the decompressed weights, as the quantized eager
// model does. A payload that sets the mode itself keeps its value.
Properties compile_properties(const PayloadView& payload);

// Reads the model XML of `payload` with `weights` (which wraps the payload's
// weight bytes) and compiles it for payload.device with `properties`
// (compile_properties of the payload). Returns false and sets *error (naming
// the step that failed) otherwise.
bool compile_payload(const OpenvinoApi& api, const PayloadView& payload,
                     const Properties& properties, ov_tensor_t* weights,
                     ov_compiled_model_t** compiled, std::string* error);

// "device=CPU loaded_from=ir INFERENCE_PRECISION_HINT=f32 ...": the device,
// whether the payload's compiled blob was imported (`imported`, "blob") or
// its IR compiled ("ir"), and the value the compiled model reports for each
// of `properties` (those it compiled with) and for the inference precision in
// any case.
std::string describe_compiled(const OpenvinoApi& api, const std::string& device,
                              const Properties& properties, const ov_compiled_model_t* compiled,
                              bool imported);

}  // namespace ov_executorch
