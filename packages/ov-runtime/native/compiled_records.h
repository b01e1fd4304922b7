// What each delegate compiled in this process was compiled with, as OpenVINO
// reports it ("device=CPU INFERENCE_PRECISION_HINT=f32"), so that users and
// tests can check that the precision a program asked for was applied. Read
// from Python through ov_executorch_compiled_delegate().
#pragma once

#include <string>

namespace ov_executorch {

void record_compiled(std::string record);

}  // namespace ov_executorch

// Copies the record of the index-th delegate compiled in this process into
// buffer (NUL-terminated, truncated to size) and returns its full length, or
// -1 when fewer delegates were compiled.
extern "C" __attribute__((visibility("default"))) long ov_executorch_compiled_delegate(
    size_t index, char* buffer, size_t size);
