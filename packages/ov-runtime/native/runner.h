// A program run through ExecuTorch's Module API, for callers that are not
// ExecuTorch's Python bindings: the Python facade (through ctypes, which
// releases the GIL for the call, so Python threads run programs in parallel).
// The caller keeps the program's bytes alive and calls one runner from one
// thread at a time.
#pragma once

#include <executorch/extension/module/module.h>
#include <executorch/runtime/core/evalue.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ov_executorch {

class Runner {
 public:
  // Reads the program in `size` bytes at `data`, which must outlive the runner,
  // with the data file (.ptd) at `data_map` (the same; nullptr for none);
  // with `etdump`, its methods load and run with an ETDump event tracer
  // (ExecuTorch's ETDumpGen), whose events write_etdump writes.
  Runner(const void* data, size_t size, const void* data_map, size_t data_map_size,
         bool etdump);

  // Parses and verifies the program (ExecuTorch's InternalConsistency check).
  executorch::runtime::Error load();

  // Loads `method`, its delegates of this backend given `options` (keys and
  // text values) as ExecuTorch's load-time backend options (runtime_options.h).
  executorch::runtime::Error load_method(
      const std::string& method,
      const std::vector<std::pair<std::string, std::string>>& options = {});

  // Runs `method` on `inputs`; the outputs stay valid until the next call.
  executorch::runtime::Error execute(const std::string& method,
                                     const std::vector<executorch::runtime::EValue>& inputs);

  const std::vector<executorch::runtime::EValue>& outputs() const { return outputs_; }

  // Writes the events recorded since the program loaded, or since the last
  // write, to the file at `path` as an ETDump, and starts recording anew.
  // NotSupported when the runner records none (or the build has no ETDump).
  executorch::runtime::Error write_etdump(const std::string& path);

 private:
  std::unique_ptr<executorch::extension::Module> module_;
  // Each loaded method's options: ExecuTorch reads them while the method loads,
  // and a LoadBackendOptionsMap refers to them rather than copying.
  std::vector<std::unique_ptr<std::vector<executorch::runtime::BackendOption>>> options_;
  std::vector<executorch::runtime::EValue> outputs_;
};

}  // namespace ov_executorch
