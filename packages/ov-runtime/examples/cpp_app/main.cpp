// Runs the `forward` method of a .pte on a tensor of ones; prints the first output's first value.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>
#include <ov_executorch/backend.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2 || ov_executorch_register_backend() != 0) return 2;
  executorch::extension::Module module(argv[1]);
  auto meta = module.method_meta("forward");
  if (!meta.ok()) return 1;
  auto sizes = meta->input_tensor_meta(0)->sizes();
  auto input = executorch::extension::ones({sizes.begin(), sizes.end()});
  auto outputs = module.forward(input);
  if (!outputs.ok()) return 1;
  std::printf("%g\n", outputs->at(0).toTensor().const_data_ptr<float>()[0]);
  return 0;
}
