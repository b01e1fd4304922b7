// Importing the compiled blob a payload may carry (the compiled_blob compile
// spec) in place of compiling its IR.
//
// OpenVINO imports a blob of its own build only, and the blob's kernels were
// chosen for the device it was compiled on; so the blob is used only when
// this OpenVINO's version and the device's FULL_DEVICE_NAME equal those the
// payload records, and when this runtime compiles with no property the blob
// was not compiled with (LP_TRANSFORMS_MODE, which compile_properties adds on
// CPUs without VNNI). Otherwise the IR is compiled, as without a blob.
//
// ov_core_import_model takes no properties, and an imported model keeps only
// those that shaped its compilation (INFERENCE_PRECISION_HINT,
// KV_CACHE_PRECISION): run-time ones such as DYNAMIC_QUANTIZATION_GROUP_SIZE,
// INFERENCE_NUM_THREADS or PERFORMANCE_HINT come from the core's settings for
// the device (verified on OpenVINO 2026.4). They are set on a core of their
// own, one per device and set of properties, kept for the process, so that
// the process's core keeps OpenVINO's defaults: setting NUM_STREAMS there,
// even back to its default value, would stop a later PERFORMANCE_HINT from
// choosing the number of streams.
#pragma once

#include <string>

#include "compiled_model.h"
#include "openvino_api.h"
#include "payload.h"

namespace ov_executorch {

// Imports payload.blob into *compiled with `properties` (compile_properties of
// the payload) and returns true; returns false with *compiled untouched when
// the payload has no blob (*reason empty) or the blob does not apply here or
// fails to import (*reason says why).
bool import_blob(const OpenvinoApi& api, const PayloadView& payload, const Properties& properties,
                 ov_compiled_model_t** compiled, std::string* reason);

}  // namespace ov_executorch
