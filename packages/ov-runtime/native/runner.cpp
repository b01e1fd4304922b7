#include "runner.h"

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/backend/backend_options_map.h>

#ifndef OV_EXECUTORCH_NO_ETDUMP
#include <executorch/devtools/etdump/etdump_flatcc.h>
#endif

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "c_api.h"
#include "errors.h"

namespace ov_executorch {

using executorch::extension::BufferDataLoader;
using executorch::extension::Module;
using executorch::runtime::Error;
using executorch::runtime::EValue;

namespace {

std::unique_ptr<executorch::runtime::EventTracer> event_tracer(bool etdump) {
#ifndef OV_EXECUTORCH_NO_ETDUMP
  if (etdump) return std::make_unique<executorch::etdump::ETDumpGen>();
#else
  if (etdump) {
    log_error("this build of the backend has no ETDump (it was built without ExecuTorch's "
              "etdump library: set OV_EXECUTORCH_ETDUMP_TARGET); the program records no events");
  }
#endif
  return nullptr;
}

}  // namespace

Runner::Runner(const void* data, size_t size, const void* data_map, size_t data_map_size,
               bool etdump)
    : module_(std::make_unique<Module>(
          std::make_unique<BufferDataLoader>(data, size), nullptr, nullptr, event_tracer(etdump),
          data_map ? std::make_unique<BufferDataLoader>(data_map, data_map_size) : nullptr)) {}

Error Runner::load() {
  return module_->load(executorch::runtime::Program::Verification::InternalConsistency);
}

Error Runner::load_method(const std::string& method,
                          const std::vector<std::pair<std::string, std::string>>& options) {
  auto meta = module_->method_meta(method);
  if (!meta.ok()) return meta.error();
  // Module::execute binds no output storage: outputs ExecuTorch did not plan
  // memory for (alloc_graph_output=False) would be written nowhere.
  for (size_t i = 0; i < meta->num_outputs(); ++i) {
    auto tag = meta->output_tag(i);
    if (!tag.ok() || tag.get() != executorch::runtime::Tag::Tensor) continue;
    auto info = meta->output_tensor_meta(i);
    if (info.ok() && !info->is_memory_planned()) {
      log_error("output %zu of method '%s' has no planned memory; lower the program with "
                "ExecuTorch's default memory planning (alloc_graph_output=True)",
                i, method.c_str());
      return Error::NotSupported;
    }
  }
  if (options.empty()) return module_->load_method(method);
  auto backend_options = std::make_unique<std::vector<executorch::runtime::BackendOption>>();
  for (const auto& [key, value] : options) {
    executorch::runtime::BackendOption option;
    if (key.empty() || key.size() >= sizeof(option.key) ||
        value.size() >= executorch::runtime::kMaxOptionValueLength) {
      log_error("the backend option '%s' has a key of %zu bytes and a value of %zu; ExecuTorch "
                "takes keys of 1 to %zu bytes and values of at most %zu",
                key.c_str(), key.size(), value.size(), sizeof(option.key) - 1,
                executorch::runtime::kMaxOptionValueLength - 1);
      return Error::InvalidArgument;
    }
    std::memcpy(option.key, key.c_str(), key.size() + 1);
    std::array<char, executorch::runtime::kMaxOptionValueLength> text{};
    std::memcpy(text.data(), value.c_str(), value.size() + 1);
    option.value = text;
    backend_options->push_back(option);
  }
  executorch::runtime::LoadBackendOptionsMap map;
  Error error = map.set_options(
      OV_EXECUTORCH_BACKEND_ID,
      executorch::runtime::Span<executorch::runtime::BackendOption>(backend_options->data(),
                                                                    backend_options->size()));
  if (error != Error::Ok) return error;
  options_.push_back(std::move(backend_options));
  return module_->load_method(method, nullptr, nullptr, &map);
}

Error Runner::execute(const std::string& method, const std::vector<EValue>& inputs) {
  outputs_.clear();
  auto result = module_->execute(method, inputs);
  if (!result.ok()) return result.error();
  outputs_ = std::move(result.get());
  return Error::Ok;
}

Error Runner::write_etdump(const std::string& path) {
#ifndef OV_EXECUTORCH_NO_ETDUMP
  auto* etdump = static_cast<executorch::etdump::ETDumpGen*>(module_->event_tracer());
  if (etdump == nullptr) {
    log_error("the program was loaded without an ETDump; load it with one to record events");
    return Error::NotSupported;
  }
  executorch::etdump::ETDumpResult result = etdump->get_etdump_data();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  bool written = file != nullptr && std::fwrite(result.buf, 1, result.size, file) == result.size;
  if (file != nullptr) written = std::fclose(file) == 0 && written;
  std::free(result.buf);  // ETDumpGen's dynamic buffer is the caller's to free
  etdump->reset();
  if (!written) {
    log_error("cannot write the ETDump to '%s'", path.c_str());
    return Error::AccessFailed;
  }
  return Error::Ok;
#else
  (void)path;
  log_error("this build of the backend has no ETDump (see OV_EXECUTORCH_ETDUMP_TARGET)");
  return Error::NotSupported;
#endif
}

}  // namespace ov_executorch

namespace {

using executorch::aten::DimOrderType;
using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using ov_executorch::Runner;

// Wraps the caller's tensors (not copied) and scalars as EValues; the tensor
// pointers keep the wrappers alive for the call.
bool to_evalues(const ov_executorch_value* values, size_t count, std::vector<EValue>* evalues,
                std::vector<executorch::extension::TensorPtr>* tensors) {
  for (size_t i = 0; i < count; ++i) {
    const ov_executorch_value& value = values[i];
    switch (value.kind) {
      case OV_EXECUTORCH_TENSOR: {
        if (value.rank < 0 || value.rank > OV_EXECUTORCH_MAX_RANK) {
          ov_executorch::log_error("input %zu has rank %lld; at most %d is taken", i,
                                   static_cast<long long>(value.rank), OV_EXECUTORCH_MAX_RANK);
          return false;
        }
        std::vector<SizesType> sizes(value.sizes, value.sizes + value.rank);
        std::vector<DimOrderType> dim_order(value.dim_order, value.dim_order + value.rank);
        tensors->push_back(executorch::extension::make_tensor_ptr(
            std::move(sizes), value.data, std::move(dim_order), {},
            static_cast<ScalarType>(value.dtype)));
        evalues->emplace_back(*tensors->back());
        break;
      }
      case OV_EXECUTORCH_INT: evalues->emplace_back(value.integer); break;
      case OV_EXECUTORCH_BOOL: evalues->emplace_back(value.integer != 0); break;
      case OV_EXECUTORCH_DOUBLE: evalues->emplace_back(value.real); break;
      default:
        ov_executorch::log_error("input %zu is of kind %d, which is not taken", i,
                                 static_cast<int>(value.kind));
        return false;
    }
  }
  return true;
}

// Describes one output for the caller: a tensor's sizes, dim order and data
// (in the program's planned memory), or a scalar.
Error describe(const EValue& value, ov_executorch_value* out) {
  std::memset(out, 0, sizeof(*out));
  if (value.isTensor()) {
    const auto& tensor = value.toTensor();
    if (tensor.dim() > OV_EXECUTORCH_MAX_RANK) return Error::NotSupported;
    out->kind = OV_EXECUTORCH_TENSOR;
    out->dtype = static_cast<int32_t>(tensor.scalar_type());
    out->rank = tensor.dim();
    for (ssize_t d = 0; d < tensor.dim(); ++d) {
      out->sizes[d] = tensor.size(d);
      out->dim_order[d] = tensor.dim_order()[d];
    }
    out->data = const_cast<void*>(tensor.const_data_ptr());
    out->nbytes = tensor.nbytes();
  } else if (value.isInt()) {
    out->kind = OV_EXECUTORCH_INT;
    out->integer = value.toInt();
  } else if (value.isBool()) {
    out->kind = OV_EXECUTORCH_BOOL;
    out->integer = value.toBool();
  } else if (value.isDouble()) {
    out->kind = OV_EXECUTORCH_DOUBLE;
    out->real = value.toDouble();
  } else {
    return Error::NotSupported;
  }
  return Error::Ok;
}

}  // namespace

int ov_executorch_runner_load(const void* data, size_t size, const void* data_map,
                              size_t data_map_size, int etdump, ov_executorch_runner** runner) {
  ov_executorch::clear_last_error();
  *runner = nullptr;
  auto loaded = std::unique_ptr<Runner>(
      new (std::nothrow) Runner(data, size, data_map, data_map_size, etdump != 0));
  if (!loaded) return static_cast<int>(Error::MemoryAllocationFailed);
  Error error = loaded->load();
  if (error == Error::Ok) *runner = reinterpret_cast<ov_executorch_runner*>(loaded.release());
  return static_cast<int>(error);
}

size_t ov_executorch_value_size(void) { return sizeof(ov_executorch_value); }

void ov_executorch_runner_free(ov_executorch_runner* runner) {
  delete reinterpret_cast<Runner*>(runner);
}

int ov_executorch_runner_load_method(ov_executorch_runner* runner, const char* method,
                                     const char* const* keys, const char* const* values,
                                     size_t count) {
  ov_executorch::clear_last_error();
  std::vector<std::pair<std::string, std::string>> options;
  for (size_t i = 0; i < count; ++i) options.emplace_back(keys[i], values[i]);
  return static_cast<int>(reinterpret_cast<Runner*>(runner)->load_method(method, options));
}

int ov_executorch_runner_write_etdump(ov_executorch_runner* runner, const char* path) {
  ov_executorch::clear_last_error();
  return static_cast<int>(reinterpret_cast<Runner*>(runner)->write_etdump(path));
}

int ov_executorch_runner_execute(ov_executorch_runner* runner, const char* method,
                                 const ov_executorch_value* inputs, size_t count,
                                 ov_executorch_value* outputs, size_t capacity,
                                 size_t* num_outputs) {
  ov_executorch::clear_last_error();
  *num_outputs = 0;
  std::vector<EValue> evalues;
  std::vector<executorch::extension::TensorPtr> tensors;
  if (!to_evalues(inputs, count, &evalues, &tensors)) return static_cast<int>(Error::InvalidArgument);
  auto* self = reinterpret_cast<Runner*>(runner);
  Error error = self->execute(method, evalues);
  if (error != Error::Ok) return static_cast<int>(error);
  const auto& values = self->outputs();
  if (values.size() > capacity) {
    ov_executorch::log_error("method '%s' has %zu outputs; the caller has room for %zu", method,
                             values.size(), capacity);
    return static_cast<int>(Error::InvalidArgument);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    error = describe(values[i], &outputs[i]);
    if (error != Error::Ok) {
      ov_executorch::log_error("output %zu of method '%s' is neither a tensor of rank %d or less "
                               "nor a scalar", i, method, OV_EXECUTORCH_MAX_RANK);
      return static_cast<int>(error);
    }
  }
  *num_outputs = values.size();
  return static_cast<int>(Error::Ok);
}
