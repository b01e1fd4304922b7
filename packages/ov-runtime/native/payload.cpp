#include "payload.h"

#include <cstring>

namespace ov_executorch {
namespace {

constexpr char kMagic[8] = {'O', 'V', 'E', 'X', 'I', 'R', '\0', '\0'};
constexpr uint32_t kVersion = 2;
constexpr size_t kHeaderSize = 80;

template <typename T>
T read_le(const uint8_t* bytes) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(bytes[i]) << (8 * i);
  }
  return value;
}

struct Section {
  const uint8_t* data;
  size_t size;
};

// Reads the (offset, size) pair at `field` of the header; false when the
// section ends past the buffer (overflow-safe).
bool read_section(const uint8_t* bytes, size_t total, size_t field, const char* name,
                  Section* section, std::string* error) {
  uint64_t offset = read_le<uint64_t>(bytes + field);
  uint64_t size = read_le<uint64_t>(bytes + field + 8);
  if (offset > total || size > total - offset) {
    *error = std::string("payload ") + name + " [" + std::to_string(offset) + ", +" +
        std::to_string(size) + ") ends past the " + std::to_string(total) +
        " bytes given (truncated?)";
    return false;
  }
  *section = {bytes + offset, static_cast<size_t>(size)};
  return true;
}

// NUL-terminated strings: the device, then a key and a value per property.
bool parse_options(Section options, PayloadView* view, std::string* error) {
  std::vector<std::string> strings;
  const char* text = reinterpret_cast<const char*>(options.data);
  size_t start = 0;
  for (size_t i = 0; i < options.size; ++i) {
    if (text[i] == '\0') {
      strings.emplace_back(text + start, i - start);
      start = i + 1;
    }
  }
  if (start != options.size || strings.empty() || strings.size() % 2 == 0) {
    *error = "payload options are not a device and key/value pairs of NUL-terminated strings";
    return false;
  }
  view->device = strings[0];
  for (size_t i = 1; i + 1 < strings.size(); i += 2) {
    view->properties.emplace_back(strings[i], strings[i + 1]);
  }
  return true;
}

// Letters for the inputs, '/', letters for the outputs.
bool parse_signature(Section signature, PayloadView* view, std::string* error) {
  std::string text(reinterpret_cast<const char*>(signature.data), signature.size);
  size_t slash = text.find('/');
  bool valid = slash != std::string::npos;
  for (size_t i = 0; valid && i < text.size(); ++i) {
    valid = i == slash || text[i] == kTensorArgument || text[i] == kScalarArgument;
  }
  if (!valid) {
    *error = "payload signature is not letters T and S for the inputs, '/', and for the outputs";
    return false;
  }
  view->inputs = text.substr(0, slash);
  view->outputs = text.substr(slash + 1);
  return true;
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
        std::to_string(kVersion) +
        (version < kVersion ? "; lower the program again with this release" : "");
    return false;
  }
  uint32_t header_size = read_le<uint32_t>(bytes + 12);
  if (header_size < kHeaderSize || header_size > size) {
    *error = "payload header_size is " + std::to_string(header_size) + "; version 2 needs " +
        std::to_string(kHeaderSize) + " to " + std::to_string(size) + " (the bytes given)";
    return false;
  }
  Section options{}, signature{}, xml{}, weights{};
  if (!read_section(bytes, size, 16, "options", &options, error) ||
      !read_section(bytes, size, 32, "signature", &signature, error) ||
      !read_section(bytes, size, 48, "model XML", &xml, error) ||
      !read_section(bytes, size, 64, "weights", &weights, error)) {
    return false;
  }
  if (xml.size == 0) {
    *error = "payload model XML is empty";
    return false;
  }
  if (!parse_options(options, view, error) || !parse_signature(signature, view, error)) {
    return false;
  }
  view->xml = reinterpret_cast<const char*>(xml.data);
  view->xml_size = xml.size;
  view->weights = weights.data;
  view->weights_size = weights.size;
  return true;
}

}  // namespace ov_executorch
