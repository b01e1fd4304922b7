// ExecuTorch's load-time backend options (runtime specs): the options an
// application passes for this backend's id when it loads a method
// (LoadBackendOptionsMap, Module::load_method), which init() reads through
// BackendInitContext::runtime_specs(). Each one overrides the payload's value
// for that delegate: "device" its device, and any other key the OpenVINO
// property of that name, passed to OpenVINO as it is, which validates it.
// This backend adds no rules of its own here.
#pragma once

#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/span.h>

#include <string>
#include <vector>

#include "payload.h"

namespace ov_executorch {

// The key of the runtime option that chooses the device.
constexpr const char* kDeviceOption = "device";

// Applies `options` to `payload` (its device and properties); returns false
// and sets *error for a value that is not text, a number or a bool, or a
// device list that names a device twice (as the payload reader refuses).
// *applied gets each key that changed the payload's value, in order: an option
// equal to the payload's own changes nothing, and keeps its compiled blob usable.
bool apply_runtime_options(executorch::runtime::Span<const executorch::runtime::BackendOption> options,
                           PayloadView* payload, std::vector<std::string>* applied,
                           std::string* error);

}  // namespace ov_executorch
