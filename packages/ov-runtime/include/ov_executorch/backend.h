// The public interface of the OpenVINO backend for ExecuTorch's C++ runtime.
//
// Linking the shared library registers the backend (under ov_spec.BACKEND_ID,
// "OvExecutorchBackend") with ExecuTorch's runtime when the library loads. An
// application that links it in a way the linker may drop unreferenced code
// (a static archive, --as-needed) calls ov_executorch_register_backend()
// before it loads a program, which also keeps the library linked.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// Registers the backend with ExecuTorch's runtime once (later calls repeat the
// first answer). Returns 0 when it is registered, else ExecuTorch's error code
// (the reason is logged, for example another backend of the same name).
__attribute__((visibility("default"))) int ov_executorch_register_backend(void);

// The id the backend is registered under ("OvExecutorchBackend"): the backend
// id an application names in ExecuTorch's LoadBackendOptionsMap to pass this
// backend load-time options (`device` or OpenVINO property names, with text
// values; see docs/python-api.md, "Options at load time").
__attribute__((visibility("default"))) const char* ov_executorch_backend_id(void);

#ifdef __cplusplus
}
#endif
