// One compiled delegate: OpenVINO's compiled model and infer request, and the
// binding of ExecuTorch's arguments to them.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

#include <cstdint>
#include <vector>

#include "compile_options.h"
#include "openvino_api.h"
#include "payload.h"

namespace ov_executorch {

// What a compiled model's input or output takes.
struct PortInfo {
  ov_element_type_e type = DYNAMIC;
  int64_t rank = -1;     // -1: dynamic rank
  bool dynamic = true;  // some dimension (or the rank) is not fixed
};

class Delegate {
 public:
  // Reads the IR in `payload` (which points into `processed`), compiles it
  // with `options` and creates its infer request. The delegate keeps
  // `processed` alive: OpenVINO reads the weights lazily.
  static executorch::runtime::Result<Delegate*> create(
      const OpenvinoApi& api,
      executorch::runtime::FreeableBuffer&& processed,
      const PayloadView& payload,
      const CompileOptions& options);

  ~Delegate();
  Delegate(const Delegate&) = delete;
  Delegate& operator=(const Delegate&) = delete;

  // args: the delegate's inputs, then its outputs. Inputs are wrapped without
  // copying; outputs with a static shape are bound to ExecuTorch's buffers;
  // outputs whose shape can change are copied out of OpenVINO's buffer after
  // the ExecuTorch tensor is resized; scalar outputs are written into their value.
  executorch::runtime::Error execute(executorch::runtime::Span<executorch::runtime::EValue*> args);

 private:
  Delegate(const OpenvinoApi& api, executorch::runtime::FreeableBuffer&& processed);

  executorch::runtime::Error read_ports();
  executorch::runtime::Error bind_input(size_t index, executorch::runtime::EValue& value);
  executorch::runtime::Error bind_output(size_t index, executorch::runtime::EValue& value);
  executorch::runtime::Error copy_scalar_output(size_t index, executorch::runtime::EValue& value);
  executorch::runtime::Error copy_dynamic_output(size_t index, executorch::aten::Tensor& output);

  const OpenvinoApi& api_;
  executorch::runtime::FreeableBuffer processed_;
  ov_tensor_t* weights_ = nullptr;
  ov_compiled_model_t* compiled_ = nullptr;
  ov_infer_request_t* request_ = nullptr;
  std::vector<PortInfo> inputs_;
  std::vector<PortInfo> outputs_;
  std::vector<int64_t> scalars_;  // storage for int, bool and float inputs (8 bytes each)
};

}  // namespace ov_executorch
