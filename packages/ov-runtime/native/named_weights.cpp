#include "named_weights.h"

#include <string>

#include "checksum.h"
#include "errors.h"

namespace ov_executorch {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;
using executorch::runtime::Result;

Result<FreeableBuffer> load_named_weights(const NamedDataMap* map, PayloadView* payload) {
  const char* key = payload->weights_key.c_str();
  if (map == nullptr) {
    log_error("the delegate's weights are the named data '%s', and the method has no named "
              "data: load the program with the data file (.ptd) it was saved with",
              key);
    return Error::NotFound;
  }
  Result<FreeableBuffer> found = map->get_data(payload->weights_key);
  if (!found.ok()) {
    log_error("the delegate's weights, the named data '%s', are in neither the program nor the "
              "data files it was loaded with (error 0x%x): load it with the data file (.ptd) it "
              "was saved with",
              key, static_cast<unsigned>(found.error()));
    return found.error();
  }
  FreeableBuffer weights = std::move(found.get());  // freed on return unless handed back
  if (weights.size() != payload->weights_size) {
    log_error("the named data '%s' holds %zu bytes; the delegate's weights are %zu bytes", key,
              weights.size(), payload->weights_size);
    return Error::DelegateInvalidCompatibility;
  }
  const auto* bytes = static_cast<const uint8_t*>(weights.data());
  if (checksum(bytes, weights.size()) != payload->weights_checksum) {
    log_error("the named data '%s' does not match the checksum of the delegate's weights: the "
              "data file is damaged or belongs to another program",
              key);
    return Error::DelegateInvalidCompatibility;
  }
  payload->weights = bytes;
  return weights;
}

}  // namespace ov_executorch
