# find_package(ov_executorch_backend CONFIG) for a C++ application, from the
# installed ov-runtime package (site-packages/ov_runtime/native/cmake), which
# sits beside the executorch wheel it was built against. Defines:
#
#   ov_executorch::backend  the OpenVINO backend (registers itself when loaded),
#                           with ExecuTorch's headers and libexecutorch.so
#   ov_executorch::kernels  ExecuTorch's CPU kernels (the wheel's optimized set),
#                           kept linked although nothing names them
#
# OpenVINO's C library is opened when the first program loads: the openvino
# wheel beside this package, or the path in OV_EXECUTORCH_OPENVINO_C_LIB.
cmake_minimum_required(VERSION 3.24)

get_filename_component(_ov_executorch_native "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
get_filename_component(_ov_executorch_wheel "${_ov_executorch_native}/../../executorch" ABSOLUTE)
find_package(executorch CONFIG REQUIRED
  PATHS "${_ov_executorch_wheel}/lib/cmake/executorch" NO_DEFAULT_PATH)

if(NOT TARGET ov_executorch::backend)
  add_library(ov_executorch::backend SHARED IMPORTED)
  set_target_properties(ov_executorch::backend PROPERTIES
    IMPORTED_LOCATION "${_ov_executorch_native}/libov_executorch_backend.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_ov_executorch_native}/include;${EXECUTORCH_INCLUDE_DIRS}"
    INTERFACE_COMPILE_DEFINITIONS "${EXECUTORCH_COMPILE_DEFINITIONS}"
    INTERFACE_COMPILE_FEATURES cxx_std_17
    INTERFACE_LINK_LIBRARIES "${_ov_executorch_wheel}/lib/libexecutorch.so")
  add_library(ov_executorch::kernels INTERFACE IMPORTED)
  set_target_properties(ov_executorch::kernels PROPERTIES
    INTERFACE_LINK_LIBRARIES
    "-Wl,--no-as-needed;${_ov_executorch_wheel}/lib/libexecutorch_kernels_optimized.so;-Wl,--as-needed")
endif()
set(ov_executorch_backend_RUNTIME_DIRS "${_ov_executorch_native};${_ov_executorch_wheel}/lib")
set(ov_executorch_backend_FOUND TRUE)
