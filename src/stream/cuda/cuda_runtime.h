// The CUDA stream backend: the CUDA driver API (libcuda.so.1, loaded with
// dlopen) runs the merged kernels of gpu_kernels.cu, embedded in libmpi as a
// fatbin, on the user's cudaStream_t. Built when configure finds nvcc.
#pragma once

#include <memory>
#include <string>

#include "stream/gpu_runtime.h"

namespace stmpi::stream::cuda {

// False, with the reason in `why` ("no CUDA device is present (...)"),
// when the driver cannot be loaded, lacks a function, or finds no device.
[[nodiscard]] bool open_runtime(std::unique_ptr<GpuRuntime>* out, std::string* why);

}  // namespace stmpi::stream::cuda
