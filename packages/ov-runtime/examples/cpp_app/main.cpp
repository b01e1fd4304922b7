// Runs the `forward` method of a .pte on a tensor of ones; prints the first output's first value.
//
//   cpp_app model.pte [KEY=VALUE]...
//
// Each KEY=VALUE is a load-time option for the OpenVINO backend's delegates:
// `device` or an OpenVINO property name (INFERENCE_PRECISION_HINT=bf16), which
// overrides the value the program was lowered with.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <ov_executorch/backend.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

using executorch::runtime::BackendOption;
using executorch::runtime::Error;
using executorch::runtime::LoadBackendOptionsMap;

int main(int argc, char** argv) {
  if (argc < 2 || ov_executorch_register_backend() != 0) return 2;
  // ExecuTorch's options for one backend id; the map refers to `options`.
  std::vector<BackendOption> options(argc - 2);
  for (int i = 2; i < argc; ++i) {
    const char* equals = std::strchr(argv[i], '=');
    BackendOption& option = options[i - 2];
    const size_t key_size = equals ? static_cast<size_t>(equals - argv[i]) : 0;
    if (key_size == 0 || key_size >= sizeof(option.key)) return 2;
    std::memcpy(option.key, argv[i], key_size);
    option.key[key_size] = '\0';
    std::array<char, executorch::runtime::kMaxOptionValueLength> value{};
    std::snprintf(value.data(), value.size(), "%s", equals + 1);
    option.value = value;
  }
  LoadBackendOptionsMap map;
  if (!options.empty() &&
      map.set_options(ov_executorch_backend_id(), {options.data(), options.size()}) != Error::Ok) {
    return 2;
  }

  executorch::extension::Module module(argv[1]);
  if (module.load_method("forward", nullptr, nullptr, &map) != Error::Ok) return 1;
  auto meta = module.method_meta("forward");
  if (!meta.ok()) return 1;
  auto sizes = meta->input_tensor_meta(0)->sizes();
  auto input = executorch::extension::ones({sizes.begin(), sizes.end()});
  auto outputs = module.forward(input);
  if (!outputs.ok()) return 1;
  std::printf("%g\n", outputs->at(0).toTensor().const_data_ptr<float>()[0]);
  return 0;
}
