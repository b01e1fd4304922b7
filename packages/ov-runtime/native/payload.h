// The delegate payload written by ov_convert.payload: a 48-byte header, the
// model XML and the weights. See payload.py for the layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ov_executorch {

struct PayloadView {
  const char* xml = nullptr;
  size_t xml_size = 0;
  const uint8_t* weights = nullptr;
  size_t weights_size = 0;
};

// Parses `size` bytes at `data`. Returns false and sets *error on a short
// buffer, a wrong magic or version, or sections outside the buffer.
bool parse_payload(const void* data, size_t size, PayloadView* view, std::string* error);

}  // namespace ov_executorch
