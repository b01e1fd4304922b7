// What each delegate compiled in this process was compiled with, as OpenVINO
// reports it ("device=CPU INFERENCE_PRECISION_HINT=f32"), so that users and
// tests can check that the properties a program asked for were applied. Read
// from Python through ov_executorch_compiled_delegate() (c_api.h).
#pragma once

#include <string>

namespace ov_executorch {

void record_compiled(std::string record);

}  // namespace ov_executorch
