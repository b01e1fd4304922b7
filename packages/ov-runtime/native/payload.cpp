#include "payload.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "checksum.h"

namespace ov_executorch {
namespace {

constexpr char kMagic[8] = {'O', 'V', 'E', 'X', 'I', 'R', '\0', '\0'};
constexpr uint32_t kVersion = 4;
constexpr uint32_t kOldestVersion = 3;  // version 4 without kNamedWeights
constexpr size_t kChecksumOffset = 80;
constexpr size_t kFlagsOffset = 88;         // where the checksummed bytes start
constexpr size_t kHeaderSize = 96;          // up to and with the flags
constexpr size_t kHeaderSizeWithBlob = 112;  // and the blob's offset and size after them
constexpr uint64_t kKnownFlags[] = {kWideInt8Weights, kWideInt8Weights | kNamedWeights};

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

constexpr size_t kMaxSections = 5;
constexpr const char* kSectionNames[kMaxSections] = {"options", "signature", "xml", "weights",
                                                     "blob"};
constexpr size_t kAlignment = 64;  // of the weights and the blob

// Where section i's offset and size are in the header.
size_t field_offset(size_t i) { return i < 4 ? 16 + 16 * i : kHeaderSize; }

// Checks that the `count` sections lie exactly where ov_convert.payload writes
// them: one after the other from the end of the header, the weights and the
// blob at the next 64-byte boundary (zero padding between) and the last
// ending where the payload ends. Overflow-safe: every section is checked to
// end inside the buffer before the next offset is derived from it.
bool read_sections(const uint8_t* bytes, size_t total, size_t header_size, size_t count,
                   Section* sections, std::string* error) {
  uint64_t expected = header_size;
  for (size_t i = 0; i < count; ++i) {
    if (i >= 3) expected += (kAlignment - expected % kAlignment) % kAlignment;
    uint64_t offset = read_le<uint64_t>(bytes + field_offset(i));
    uint64_t size = read_le<uint64_t>(bytes + field_offset(i) + 8);
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
    *error = std::string("payload ") + kSectionNames[count - 1] + " section ends at " +
        std::to_string(expected) + ", not at the payload's end (" + std::to_string(total) +
        " bytes)";
    return false;
  }
  for (size_t i = 2; i + 1 < count; ++i) {  // the padding after the xml, and after the weights
    for (const uint8_t* pad = sections[i].data + sections[i].size; pad < sections[i + 1].data;
         ++pad) {
      if (*pad != 0) {
        *error = std::string("payload padding before the ") + kSectionNames[i + 1] +
            " is not zero";
        return false;
      }
    }
  }
  return true;
}

// The OpenVINO version and the device name, each NUL-terminated, then the blob.
bool parse_blob(Section blob, PayloadView* view, std::string* error) {
  const char* text = reinterpret_cast<const char*>(blob.data);
  const char* end = text + blob.size;
  const char* version_end = std::find(text, end, '\0');
  const char* name_end = version_end == end ? end : std::find(version_end + 1, end, '\0');
  if (name_end == end) {
    *error = "payload blob section does not start with the OpenVINO version and the device "
             "name, each NUL-terminated";
    return false;
  }
  view->blob_openvino_version.assign(text, version_end);
  view->blob_device_name.assign(version_end + 1, name_end);
  view->blob = name_end + 1;
  view->blob_size = static_cast<size_t>(end - view->blob);
  return true;
}

// The key, NUL-terminated, then the weights' size and XXH3-64 (two uint64).
bool parse_named_weights(Section weights, PayloadView* view, std::string* error) {
  const char* text = reinterpret_cast<const char*>(weights.data);
  const char* key_end = std::find(text, text + weights.size, '\0');
  size_t key_size = static_cast<size_t>(key_end - text);
  if (key_size == 0 || weights.size != key_size + 1 + 16) {
    *error = "payload weights section is not a named data key, NUL-terminated, then the "
             "weights' size and checksum (two uint64)";
    return false;
  }
  view->weights_key.assign(text, key_size);
  view->weights_size = static_cast<size_t>(read_le<uint64_t>(weights.data + key_size + 1));
  view->weights_checksum = read_le<uint64_t>(weights.data + key_size + 9);
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
  std::string repeated = repeated_device(view->device);
  if (!repeated.empty()) {
    *error = "payload device '" + view->device + "' names the device '" + repeated +
        "' twice; OpenVINO's AUTO and MULTI devices returned stale output shapes for such a "
        "list, so each device must be named once";
    return false;
  }
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
            (i > slash && text[i] == kCopiedArgument) ||
            (i < slash && (text[i] == kPositionsArgument || text[i] == kFirstPositionArgument));
  }
  if (!valid) {
    *error =
        "payload signature is not letters T, S, P and F for the inputs, '/', and T, S and C "
        "for the outputs";
    return false;
  }
  view->inputs = text.substr(0, slash);
  view->outputs = text.substr(slash + 1);
  size_t positions = 0;
  for (char letter : view->inputs) {
    positions += letter == kPositionsArgument || letter == kFirstPositionArgument;
  }
  if (positions > 1) {
    *error = "payload signature marks more than one input as the KV-cache positions (P or F)";
    return false;
  }
  return true;
}

}  // namespace

std::string repeated_device(const std::string& device) {
  size_t colon = device.find(':');
  if (colon == std::string::npos) return "";
  std::vector<std::string> seen;
  for (size_t start = colon + 1; start <= device.size();) {
    size_t end = std::min(device.find(',', start), device.size());
    std::string name = device.substr(start, end - start);
    std::string key = name.find('.') == std::string::npos ? name + ".0" : name;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) return name;
    seen.push_back(key);
    start = end + 1;
  }
  return "";
}


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
  if (version < kOldestVersion || version > kVersion) {
    *error = "payload version is " + std::to_string(version) + "; this runtime reads versions " +
        std::to_string(kOldestVersion) + " to " + std::to_string(kVersion) +
        (version < kOldestVersion ? "; lower the program again with this release" : "");
    return false;
  }
  uint32_t header_size = read_le<uint32_t>(bytes + 12);
  if ((header_size != kHeaderSize && header_size != kHeaderSizeWithBlob) || header_size > size) {
    *error = "payload header_size is " + std::to_string(header_size) + "; version " +
        std::to_string(version) + " has " +
        std::to_string(kHeaderSize) + ", or " + std::to_string(kHeaderSizeWithBlob) +
        " with a compiled blob, within the " + std::to_string(size) + " bytes given";
    return false;
  }
  // Nothing after the fixed fields is read before its bytes are known intact:
  // the flags, the blob's fields and every section are checksummed.
  if (checksum(bytes + kFlagsOffset, size - kFlagsOffset) !=
      read_le<uint64_t>(bytes + kChecksumOffset)) {
    *error = "payload checksum does not match its bytes: the payload is corrupt";
    return false;
  }
  view->flags = read_le<uint64_t>(bytes + kFlagsOffset);
  const uint64_t known = kKnownFlags[version - kOldestVersion];
  if (view->flags & ~known) {
    char text[19];
    std::snprintf(text, sizeof(text), "0x%llx",
                  static_cast<unsigned long long>(view->flags & ~known));
    *error = std::string("payload flags set the bits ") + text + ", which version " +
        std::to_string(version) + " does not have; it has " +
        (known & kNamedWeights ? "bits 0 (WIDE_INT8_WEIGHTS) and 1 (NAMED_WEIGHTS)"
                               : "bit 0 (WIDE_INT8_WEIGHTS)");
    return false;
  }
  size_t count = header_size == kHeaderSizeWithBlob ? 5 : 4;
  Section sections[kMaxSections]{};
  if (!read_sections(bytes, size, header_size, count, sections, error)) return false;
  const auto& [options, signature, xml, weights, blob] = sections;
  if (xml.size == 0) {
    *error = "payload model XML is empty";
    return false;
  }
  if (!parse_options(options, view, error) || !parse_signature(signature, view, error) ||
      (count == 5 && !parse_blob(blob, view, error))) {
    return false;
  }
  view->xml = reinterpret_cast<const char*>(xml.data);
  view->xml_size = xml.size;
  if (view->flags & kNamedWeights) return parse_named_weights(weights, view, error);
  view->weights = weights.data;
  view->weights_size = weights.size;
  return true;
}

}  // namespace ov_executorch
