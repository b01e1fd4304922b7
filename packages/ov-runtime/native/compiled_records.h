// What each delegate alive in this process was compiled with, as OpenVINO
// reports it ("device=CPU INFERENCE_PRECISION_HINT=f32"), so that users and
// tests can check that the properties a program asked for were applied. Read
// from Python through ov_executorch_compiled_delegate() (c_api.h).
#pragma once

#include <cstdint>
#include <string>

namespace ov_executorch {

// Keeps `record` until forget_compiled(key) with the key it returns (never 0).
uint64_t record_compiled(std::string record);

void forget_compiled(uint64_t key);

}  // namespace ov_executorch
