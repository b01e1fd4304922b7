// ov-executorch-run: runs a .pte through ExecuTorch's C++ Module API with this
// project's OpenVINO backend and ExecuTorch's own CPU kernels, without Python.
//
//   ov-executorch-run model.pte [--data model.ptd] [--method forward] [--input FILE]...
//       [--output-dir DIR] [--calls N] [--option KEY=VALUE]... [--etdump FILE]
//
// --data names a data file (.ptd) holding named data the program keeps outside
// it, such as its delegates' weights (ExecuTorch's external constants).
//
// Inputs are .npy files, or raw bytes (any other extension) in the method's
// dtype and exported shape. Each output i is written to DIR/output_<i>.npy
// (DIR: the current folder unless given; it must exist). Each --option is a
// load-time option for this backend's delegates (ExecuTorch's
// LoadBackendOptionsMap for its id): `device` or an OpenVINO property name
// (INFERENCE_PRECISION_HINT=bf16, PERF_COUNT=YES), which OpenVINO checks.
// --etdump records ExecuTorch's events, this backend's among them, and writes
// them as an ETDump file after the last call. Prints the load time
// and the time of each call in milliseconds. Exits 0 on success, 1 on a
// program that does not load or run, 2 on bad arguments or inputs (a method
// the program lacks, inputs the method refuses).

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cerrno>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#ifndef OV_EXECUTORCH_NO_ETDUMP
#include <executorch/devtools/etdump/etdump_flatcc.h>
#endif

#include "npy.h"
#include "ov_executorch/backend.h"

namespace {

using executorch::aten::ScalarType;
using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::MethodMeta;
using executorch::runtime::toString;
using ov_executorch::tools::NpyArray;

constexpr int kRunFailed = 1;
constexpr int kBadArguments = 2;

struct Options {
  std::string program;
  std::string method = "forward";
  std::vector<std::string> inputs;
  std::string output_dir = ".";
  int calls = 1;
  std::vector<std::pair<std::string, std::string>> backend_options;
  std::string etdump;
  std::string data;  // a .ptd, or "" for none
};

constexpr const char* kUsage =
    "usage: ov-executorch-run PROGRAM.pte [--data FILE.ptd] [--method NAME] [--input FILE]... "
    "[--output-dir DIR] [--calls N] [--option KEY=VALUE]... [--etdump FILE]\n";

int usage(const std::string& problem) {
  std::fprintf(stderr, "error: %s\n%s", problem.c_str(), kUsage);
  return kBadArguments;
}

// A whole number from 1 to 2**31 - 1, else 0.
int parse_count(const char* text) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  const bool whole = end != text && *end == '\0' && errno == 0;
  return whole && value > 0 && value <= 0x7fffffff ? static_cast<int>(value) : 0;
}

bool parse(int argc, char** argv, Options* options, std::string* problem) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--method" && has_value) {
      options->method = argv[++i];
    } else if (arg == "--input" && has_value) {
      options->inputs.emplace_back(argv[++i]);
    } else if (arg == "--output-dir" && has_value) {
      options->output_dir = argv[++i];
    } else if (arg == "--calls" && has_value) {
      options->calls = parse_count(argv[++i]);
      if (options->calls < 1) {
        *problem = std::string("--calls takes a positive whole number, not '") + argv[i] + "'";
        return false;
      }
    } else if (arg == "--option" && has_value) {
      const std::string option = argv[++i];
      const size_t equals = option.find('=');
      if (equals == 0 || equals == std::string::npos) {
        *problem = "--option takes KEY=VALUE (device=CPU, INFERENCE_PRECISION_HINT=bf16), not '" +
            option + "'";
        return false;
      }
      options->backend_options.emplace_back(option.substr(0, equals), option.substr(equals + 1));
    } else if (arg == "--etdump" && has_value) {
      options->etdump = argv[++i];
    } else if (arg == "--data" && has_value) {
      options->data = argv[++i];
    } else if (arg.rfind("--", 0) != 0 && options->program.empty()) {
      options->program = arg;
    } else {
      *problem = "unexpected argument '" + arg + "'";
      return false;
    }
  }
  if (options->program.empty()) {
    *problem = "no program given";
    return false;
  }
  if (!std::filesystem::is_directory(options->output_dir)) {
    *problem = "the output folder '" + options->output_dir + "' is not a folder (create it first)";
    return false;
  }
  return true;
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
      text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Reads input `index` from `path` (.npy, or raw bytes in the method's dtype
// and static shape) and checks it against the method.
bool read_input(const MethodMeta& meta, size_t index, const std::string& path, NpyArray* array,
                std::string* problem) {
  auto info = meta.input_tensor_meta(index);
  if (!info.ok()) {
    *problem = "input " + std::to_string(index) + " of the method is not a tensor";
    return false;
  }
  const ScalarType dtype = info->scalar_type();
  if (ends_with(path, ".npy")) {
    if (!ov_executorch::tools::read_npy(path, array, problem)) return false;
    if (array->dtype != dtype) {
      *problem = path + " holds " + toString(array->dtype) + "; input " + std::to_string(index) +
          " takes " + toString(dtype);
      return false;
    }
    return true;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *problem = "cannot open " + path;
    return false;
  }
  array->dtype = dtype;
  array->shape.assign(info->sizes().begin(), info->sizes().end());
  array->data.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  if (array->data.size() != info->nbytes()) {
    *problem = path + " holds " + std::to_string(array->data.size()) + " bytes; input " +
        std::to_string(index) + " takes " + std::to_string(info->nbytes()) +
        " (raw bytes in the exported shape; a dynamic input of another shape needs a .npy file)";
    return false;
  }
  return true;
}

bool write_outputs(const std::vector<EValue>& outputs, const std::string& folder,
                   std::string* problem) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const EValue& value = outputs[i];
    if (!value.isTensor()) {
      std::printf("output %zu: %s\n", i,
                  value.isInt()      ? std::to_string(value.toInt()).c_str()
                  : value.isDouble() ? std::to_string(value.toDouble()).c_str()
                  : value.isBool()   ? (value.toBool() ? "true" : "false")
                                     : "(not a tensor or scalar)");
      continue;
    }
    const auto& tensor = value.toTensor();
    std::vector<int64_t> shape(tensor.sizes().begin(), tensor.sizes().end());
    const std::string path = folder + "/output_" + std::to_string(i) + ".npy";
    if (!ov_executorch::tools::write_npy(path, tensor.scalar_type(), shape,
                                         tensor.const_data_ptr(), tensor.nbytes(), problem)) {
      return false;
    }
  }
  return true;
}

// "Long[4, 12], Long[4, 12]": each input's dtype and exported (for a dynamic
// size, its largest) shape.
std::string describe_inputs(const MethodMeta& meta) {
  std::string text;
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    auto info = meta.input_tensor_meta(i);
    text += i == 0 ? "" : ", ";
    if (!info.ok()) {
      text += "a scalar";
      continue;
    }
    text += std::string(toString(info->scalar_type())) + "[";
    for (size_t d = 0; d < info->sizes().size(); ++d) {
      text += (d == 0 ? "" : ", ") + std::to_string(info->sizes()[d]);
    }
    text += "]";
  }
  return text;
}

// Builds ExecuTorch's load-time options for this backend's id from `given`
// into `storage` (which the map refers to) and `map`; false with *problem when
// a key or value is longer than ExecuTorch takes.
bool backend_options(const std::vector<std::pair<std::string, std::string>>& given,
                     std::vector<executorch::runtime::BackendOption>* storage,
                     executorch::runtime::LoadBackendOptionsMap* map, std::string* problem) {
  for (const auto& [key, value] : given) {
    executorch::runtime::BackendOption option;
    if (key.size() >= sizeof(option.key) ||
        value.size() >= executorch::runtime::kMaxOptionValueLength) {
      *problem = "--option " + key + ": ExecuTorch takes keys of at most " +
          std::to_string(sizeof(option.key) - 1) + " bytes and values of at most " +
          std::to_string(executorch::runtime::kMaxOptionValueLength - 1);
      return false;
    }
    std::snprintf(option.key, sizeof(option.key), "%s", key.c_str());
    std::array<char, executorch::runtime::kMaxOptionValueLength> text{};
    std::snprintf(text.data(), text.size(), "%s", value.c_str());
    option.value = text;
    storage->push_back(option);
  }
  if (storage->empty()) return true;
  const Error error = map->set_options(
      ov_executorch_backend_id(),
      executorch::runtime::Span<executorch::runtime::BackendOption>(storage->data(),
                                                                    storage->size()));
  if (error != Error::Ok) {
    *problem = "ExecuTorch refused the backend options (error " +
        std::to_string(static_cast<int>(error)) + ")";
    return false;
  }
  return true;
}

// Writes the ETDump that `tracer` recorded to `path`.
bool write_etdump(executorch::runtime::EventTracer* tracer, const std::string& path,
                  std::string* problem) {
#ifndef OV_EXECUTORCH_NO_ETDUMP
  auto result = static_cast<executorch::etdump::ETDumpGen*>(tracer)->get_etdump_data();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  bool written = file != nullptr && std::fwrite(result.buf, 1, result.size, file) == result.size;
  if (file != nullptr) written = std::fclose(file) == 0 && written;
  std::free(result.buf);
  if (!written) *problem = "cannot write the ETDump to " + path;
  return written;
#else
  (void)tracer;
  (void)path;
  *problem = "this runner was built without ExecuTorch's ETDump library";
  return false;
#endif
}

int fail(const char* what, Error error) {
  std::fprintf(stderr, "error: %s failed with ExecuTorch error 0x%x (the log above says why)\n",
               what, static_cast<unsigned>(error));
  return kRunFailed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::string problem;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::printf("%s", kUsage);
      return 0;
    }
  }
  if (!parse(argc, argv, &options, &problem)) return usage(problem);
  if (ov_executorch_register_backend() != 0) {
    std::fprintf(stderr, "error: the OpenVINO backend could not be registered\n");
    return kRunFailed;
  }

  std::unique_ptr<executorch::runtime::EventTracer> tracer;
  if (!options.etdump.empty()) {
#ifndef OV_EXECUTORCH_NO_ETDUMP
    tracer = std::make_unique<executorch::etdump::ETDumpGen>();
#else
    return usage("--etdump: this runner was built without ExecuTorch's ETDump library");
#endif
  }
  std::vector<executorch::runtime::BackendOption> option_storage;
  executorch::runtime::LoadBackendOptionsMap option_map;
  if (!backend_options(options.backend_options, &option_storage, &option_map, &problem)) {
    return usage(problem);
  }

  const auto load_start = std::chrono::steady_clock::now();
  // ExecuTorch's Module maps the program and the data file (Mmap) rather than
  // reading them: delegates' named weights are read where they lie.
  std::unique_ptr<Module> loaded =
      options.data.empty()
          ? std::make_unique<Module>(options.program, Module::LoadMode::Mmap, std::move(tracer))
          : std::make_unique<Module>(options.program, options.data, Module::LoadMode::Mmap,
                                     std::move(tracer));
  Module& module = *loaded;
  if (Error error = module.load(); error != Error::Ok) return fail("loading the program", error);
  auto meta = module.method_meta(options.method);
  if (!meta.ok()) {
    auto names = module.method_names();
    std::string known;
    for (const auto& name : names.ok() ? *names : std::unordered_set<std::string>{}) {
      known += (known.empty() ? "" : ", ") + name;
    }
    return usage("the program has no method '" + options.method + "'; it has: " + known);
  }
  if (Error error = module.load_method(options.method, nullptr, nullptr,
                                       option_storage.empty() ? nullptr : &option_map);
      error != Error::Ok) {
    return fail(("loading method '" + options.method + "'").c_str(), error);
  }
  std::printf("load: %.2f ms\n", milliseconds_since(load_start));

  if (options.inputs.size() != meta->num_inputs()) {
    return usage("method '" + options.method + "' takes " + std::to_string(meta->num_inputs()) +
                 " inputs (" + describe_inputs(*meta) + "); " +
                 std::to_string(options.inputs.size()) + " --input files given");
  }
  std::vector<NpyArray> arrays(options.inputs.size());
  std::vector<TensorPtr> tensors;
  std::vector<EValue> inputs;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!read_input(*meta, i, options.inputs[i], &arrays[i], &problem)) return usage(problem);
    std::vector<executorch::aten::SizesType> sizes(arrays[i].shape.begin(), arrays[i].shape.end());
    tensors.push_back(executorch::extension::make_tensor_ptr(std::move(sizes),
                                                             arrays[i].data.data(), arrays[i].dtype));
    inputs.emplace_back(*tensors.back());
  }
  // The method checks each input's dtype, rank and sizes here, before any call.
  if (Error error = module.set_inputs(options.method, inputs); error != Error::Ok) {
    std::fprintf(stderr, "error: the method refused the inputs with ExecuTorch error 0x%x "
                 "(the log above says why)\n", static_cast<unsigned>(error));
    return kBadArguments;
  }

  std::vector<EValue> outputs;
  for (int call = 0; call < options.calls; ++call) {
    const auto start = std::chrono::steady_clock::now();
    auto result = module.execute(options.method, inputs);
    const double elapsed = milliseconds_since(start);
    if (!result.ok()) return fail(("call " + std::to_string(call)).c_str(), result.error());
    std::printf("call %d: %.3f ms\n", call, elapsed);
    if (call + 1 == options.calls) outputs = std::move(result.get());
  }
  if (!write_outputs(outputs, options.output_dir, &problem) ||
      (!options.etdump.empty() && !write_etdump(module.event_tracer(), options.etdump, &problem))) {
    std::fprintf(stderr, "error: %s\n", problem.c_str());
    return kRunFailed;
  }
  return 0;
}
