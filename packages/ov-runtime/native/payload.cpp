#include "payload.h"

#include <cstring>

namespace ov_executorch {
namespace {

constexpr char kMagic[8] = {'O', 'V', 'E', 'X', 'I', 'R', '\0', '\0'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 48;

template <typename T>
T read_le(const uint8_t* bytes) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(bytes[i]) << (8 * i);
  }
  return value;
}

bool section_fits(uint64_t offset, uint64_t size, size_t total) {
  return offset <= total && size <= total - offset;
}

}  // namespace

bool parse_payload(const void* data, size_t size, PayloadView* view, std::string* error) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (bytes == nullptr || size < kHeaderSize) {
    *error = "payload has " + std::to_string(size) + " bytes; the header alone needs " +
        std::to_string(kHeaderSize);
    return false;
  }
  if (std::memcmp(bytes, kMagic, sizeof(kMagic)) != 0) {
    *error = "payload does not start with this backend's magic \"OVEXIR\"; it was not made by "
             "this backend's preprocess";
    return false;
  }
  uint32_t version = read_le<uint32_t>(bytes + 8);
  if (version != kVersion) {
    *error = "payload version is " + std::to_string(version) + "; this runtime reads version " +
        std::to_string(kVersion);
    return false;
  }
  uint64_t xml_offset = read_le<uint64_t>(bytes + 16);
  uint64_t xml_size = read_le<uint64_t>(bytes + 24);
  uint64_t weights_offset = read_le<uint64_t>(bytes + 32);
  uint64_t weights_size = read_le<uint64_t>(bytes + 40);
  if (!section_fits(xml_offset, xml_size, size) || xml_size == 0) {
    *error = "payload model XML [" + std::to_string(xml_offset) + ", +" + std::to_string(xml_size) +
        ") is empty or ends past the " + std::to_string(size) + " bytes given (truncated?)";
    return false;
  }
  if (!section_fits(weights_offset, weights_size, size)) {
    *error = "payload weights [" + std::to_string(weights_offset) + ", +" +
        std::to_string(weights_size) + ") end past the " + std::to_string(size) +
        " bytes given (truncated?)";
    return false;
  }
  view->xml = reinterpret_cast<const char*>(bytes + xml_offset);
  view->xml_size = static_cast<size_t>(xml_size);
  view->weights = bytes + weights_offset;
  view->weights_size = static_cast<size_t>(weights_size);
  return true;
}

}  // namespace ov_executorch
