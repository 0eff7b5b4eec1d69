// The HIP stream backend: the HIP runtime (libamdhip64, loaded with dlopen)
// runs the merged kernels of gpu_kernels.cu, embedded in libmpi as a code
// object bundle, on the user's hipStream_t. Built when configure finds hipcc.
#pragma once

#include <memory>
#include <string>

#include "stream/gpu_runtime.h"

namespace stmpi::stream::hip {

// False, with the reason in `why` ("no ROCm device is present (...)"),
// when the runtime cannot be loaded, lacks a function, or finds no device.
[[nodiscard]] bool open_runtime(std::unique_ptr<GpuRuntime>* out, std::string* why);

}  // namespace stmpi::stream::hip
