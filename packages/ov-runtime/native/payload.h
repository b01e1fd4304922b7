// The delegate payload written by ov_convert.payload: a versioned header, the
// compile options (device and OpenVINO properties), the kind of each delegate
// argument, the model XML, the weights and, optionally, a compiled blob. See
// payload.py for the layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ov_executorch {

struct PayloadView {
  std::string device;
  // OpenVINO properties, applied as they are when the model compiles.
  std::vector<std::pair<std::string, std::string>> properties;
  std::string inputs;   // one letter per delegate input: 'T' tensor, 'S' scalar
  std::string outputs;  // one letter per delegate output
  const char* xml = nullptr;
  size_t xml_size = 0;
  // The IR's weights: in the payload, or (kNamedWeights) the named data
  // stored under weights_key, whose size and XXH3-64 the payload gives and
  // whose bytes init finds in the method's NamedDataMap (named_weights.h).
  const uint8_t* weights = nullptr;
  size_t weights_size = 0;
  std::string weights_key;
  uint64_t weights_checksum = 0;
  // kWideInt8Weights, kNamedWeights, or 0.
  uint64_t flags = 0;
  // The model compiled at lowering (the compiled_blob compile spec), with the
  // OpenVINO version and the device's FULL_DEVICE_NAME it was made with;
  // blob is nullptr when the payload carries none.
  std::string blob_openvino_version;
  std::string blob_device_name;
  const char* blob = nullptr;
  size_t blob_size = 0;
};

// Int8 weights beyond +-64 multiply quantized activations: OpenVINO's int8
// kernels for CPUs without VNNI would saturate the products (see
// cpu_features.h).
constexpr uint64_t kWideInt8Weights = 1;
// The weights section names ExecuTorch named data rather than holding the
// weights (payload version 4).
constexpr uint64_t kNamedWeights = 2;

constexpr char kTensorArgument = 'T';
constexpr char kScalarArgument = 'S';
// An output tensor the model passes through (a Parameter, a Constant, or the
// same value as an earlier output): copied out after inference, never bound.
constexpr char kCopiedArgument = 'C';
// An input tensor of KV-cache positions (int32 or int64), bound as a tensor,
// whose first element is where the call starts in a cache that OpenVINO grows
// by concatenation (ov_convert.appended_caches): a call that starts at 0
// after earlier calls first resets the delegate's state.
constexpr char kPositionsArgument = 'P';
// A scalar input that is the call's first position in such a cache (ExecuTorch's
// Llama passes it as an int it reads on the CPU), bound as kScalarArgument.
constexpr char kFirstPositionArgument = 'F';

// Parses `size` bytes at `data`. Returns false and sets *error on a short
// buffer, a wrong magic, version or header size, a checksum that does not
// match, unknown flag bits, sections anywhere but where ov_convert.payload
// writes them, or options and a signature that do not parse. The checksum is
// verified before anything else past the header's fixed fields is read.
bool parse_payload(const void* data, size_t size, PayloadView* view, std::string* error);

// The first device a device list ("AUTO:CPU,GPU") names twice, "" if none;
// "GPU" is "GPU.0". OpenVINO accepts such lists, and AUTO:CPU,CPU and
// MULTI:CPU,CPU returned the first call's output shape for later calls of a
// dynamic program (the same rule as ov_spec's, applied to crafted programs and
// to runtime options).
std::string repeated_device(const std::string& device);

}  // namespace ov_executorch
