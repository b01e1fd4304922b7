// A delegate's weights kept as ExecuTorch named data (payload flag
// kNamedWeights): found in the method's NamedDataMap, which holds the
// program's own named data and that of the data files (.ptd) it was loaded
// with, and checked against the size and checksum the payload gives.
#pragma once

#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>

#include "payload.h"

namespace ov_executorch {

// Gets the named weights of `payload` from `map` and points payload->weights
// at them. The buffer is the data loader's: mapped from the file where the
// loader maps, so OpenVINO reads the weights where they lie; the caller keeps
// it alive as long as OpenVINO may read them. Logs the reason and returns an
// error when the map is missing, lacks the key, or holds bytes of another
// size or checksum.
executorch::runtime::Result<executorch::runtime::FreeableBuffer> load_named_weights(
    const executorch::runtime::NamedDataMap* map, PayloadView* payload);

}  // namespace ov_executorch
