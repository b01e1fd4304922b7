// Where OpenVINO's model cache lives when the compile specs name no folder.
//
// OpenVINO's CACHE_DIR property makes compile_model store the compiled model
// in a folder and import it on the next load of the same model with the same
// properties, which skips compiling (the model and the properties are the
// cache's key). This backend turns it on by default, in a per-user folder
// resolved when a delegate loads, on the machine that runs the program:
//   1. OV_EXECUTORCH_CACHE_DIR, when set and not empty: that folder, or no
//      cache when it is "none" (ov_spec.NO_CACHE, the compile spec's spelling);
//   2. $XDG_CACHE_HOME/ov_executorch, when XDG_CACHE_HOME is an absolute path
//      (the XDG base directory specification ignores relative ones);
//   3. $HOME/.cache/ov_executorch;
//   4. no cache, when none of them is set.
// A folder that cannot be created or written means no cache, with a log line:
// a cache only ever makes loading faster, never makes it fail.
#pragma once

#include <optional>
#include <string>

namespace ov_executorch {

// The environment variable that moves or turns off the default model cache.
constexpr const char* kCacheDirVariable = "OV_EXECUTORCH_CACHE_DIR";

// The default model cache folder as the rules above give it, created if
// missing; std::nullopt for no cache.
std::optional<std::string> default_cache_dir();

}  // namespace ov_executorch
