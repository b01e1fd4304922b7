#include "payload.h"

#include <cstring>

#include "checksum.h"

namespace ov_executorch {
namespace {

constexpr char kMagic[8] = {'O', 'V', 'E', 'X', 'I', 'R', '\0', '\0'};
constexpr uint32_t kVersion = 2;
constexpr size_t kHeaderSize = 88;          // up to the checksum
constexpr size_t kHeaderSizeWithFlags = 96;  // and the flags after it

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

constexpr const char* kSectionNames[4] = {"options", "signature", "xml", "weights"};
constexpr size_t kWeightsAlignment = 64;

// Checks that the sections lie exactly where ov_convert.payload writes them:
// one after the other from the end of the header, the weights at the next
// 64-byte boundary after the XML (zero padding between) and ending where the
// payload ends. Overflow-safe: every section is checked to end inside the
// buffer before the next offset is derived from it.
bool read_sections(const uint8_t* bytes, size_t total, size_t header_size, Section* sections,
                   std::string* error) {
  uint64_t expected = header_size;
  for (size_t i = 0; i < 4; ++i) {
    if (i == 3) expected += (kWeightsAlignment - expected % kWeightsAlignment) % kWeightsAlignment;
    uint64_t offset = read_le<uint64_t>(bytes + 16 + 16 * i);
    uint64_t size = read_le<uint64_t>(bytes + 24 + 16 * i);
    if (offset != expected || offset > total || size > total - offset) {
      *error = std::string("payload ") + kSectionNames[i] + " section [" +
          std::to_string(offset) + ", +" + std::to_string(size) +
          ") is not where this release writes it (offset " + std::to_string(expected) +
          ", inside the " + std::to_string(total) + " bytes given)";
      return false;
    }
    sections[i] = {bytes + offset, static_cast<size_t>(size)};
    expected = offset + size;
  }
  if (expected != total) {
    *error = "payload weights section ends at " + std::to_string(expected) +
        ", not at the payload's end (" + std::to_string(total) + " bytes)";
    return false;
  }
  for (const uint8_t* pad = sections[2].data + sections[2].size; pad < sections[3].data; ++pad) {
    if (*pad != 0) {
      *error = "payload padding before the weights is not zero";
      return false;
    }
  }
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
    valid = i == slash || text[i] == kTensorArgument || text[i] == kScalarArgument ||
            (i > slash && text[i] == kCopiedArgument);
  }
  if (!valid) {
    *error =
        "payload signature is not letters T and S for the inputs, '/', and T, S and C for the "
        "outputs";
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
  Section sections[4]{};
  if (!read_sections(bytes, size, header_size, sections, error)) return false;
  const auto& [options, signature, xml, weights] = sections;
  if (size - header_size < kMinChecksummedBytes) {
    *error = "payload has " + std::to_string(size - header_size) + " bytes after its header";
    return false;
  }
  view->body = bytes + header_size;
  view->body_size = size - header_size;
  view->checksum = read_le<uint64_t>(bytes + 80);
  view->flags = header_size >= kHeaderSizeWithFlags ? read_le<uint64_t>(bytes + kHeaderSize) : 0;
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

bool verify_checksum(const PayloadView& payload, std::string* error) {
  if (checksum(payload.body, payload.body_size) == payload.checksum) return true;
  *error = "payload checksum does not match its bytes: the payload is corrupt";
  return false;
}

}  // namespace ov_executorch
