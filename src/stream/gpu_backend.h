// What the CUDA and HIP backends (cuda/, hip/) share around their runtime's
// calls: the symbol names to look up, the kernel image loaded once per CUDA
// context or HIP device, and the text of their descriptions and errors. Only
// the backends' sources include it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include <mpi.h>

#include "stream/gpu_runtime.h"
#include "stream/kernel_params.h"
#include "util/error.h"

// The name of runtime function `fn` after its header's macros (cuda.h maps
// cuStreamWriteValue64 to cuStreamWriteValue64_v2, HIP maps some names to
// per-thread-stream variants): the symbol to look up, whose prototype is the
// one decltype sees.
#define STMPI_STREAM_SYMBOL(fn) STMPI_STREAM_SYMBOL_TEXT(fn)
#define STMPI_STREAM_SYMBOL_TEXT(fn) #fn

namespace stmpi::stream {

// The kernels of gpu_kernels.cu, in KernelId order.
inline constexpr std::array<const char*, 4> kKernelNames = {
    gpu::kSignalKernelName, gpu::kWaitKernelName, gpu::kCopyKernelName, gpu::kEpochKernelName};
static_assert(static_cast<std::size_t>(KernelId::kEpoch) + 1 == kKernelNames.size());

// One load of the kernel image: the runtime's module and its kernels, in
// kKernelNames order.
template <class Module, class Function>
struct KernelModule {
  Module module = nullptr;
  std::array<Function, kKernelNames.size()> functions{};

  Function operator[](KernelId id) const { return functions[static_cast<std::size_t>(id)]; }

  // Looks up every kernel of the loaded module with find(Function*, name),
  // which returns an MPI error code; stops at the first failure.
  template <class Find>
  [[nodiscard]] int find_functions(Find&& find) {
    for (std::size_t i = 0; i < kKernelNames.size(); ++i) {
      if (int err = find(&functions[i], kKernelNames[i]); err != MPI_SUCCESS) return err;
    }
    return MPI_SUCCESS;
  }
};

// The kernel image loaded once per Key (a CUDA context, a HIP device).
template <class Key, class Module, class Function>
class KernelModules {
 public:
  using Kernels = KernelModule<Module, Function>;

  // The kernels for `key`. The first time, load(Kernels*) fills them and
  // returns an MPI error code; after a failed load the next call tries again.
  template <class Load>
  [[nodiscard]] int get(const Key& key, const Kernels** out, Load&& load) {
    std::lock_guard lock(mutex_);
    Kernels& kernels = modules_[key];
    if (kernels.module == nullptr) {
      if (int err = load(&kernels); err != MPI_SUCCESS) {
        modules_.erase(key);
        return err;
      }
    }
    *out = &kernels;
    return MPI_SUCCESS;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<Key, Kernels> modules_;
};

// What a backend's description() says:
// "cuda (driver 12040, 2 devices, stream memory operations: yes)".
inline std::string runtime_description(const char* backend, const char* version_kind, int version,
                                       int devices, bool mem_ops) {
  char text[160];
  std::snprintf(text, sizeof text, "%s (%s %d, %d device%s, stream memory operations: %s)", backend,
                version_kind, version, devices, devices == 1 ? "" : "s", mem_ops ? "yes" : "no");
  return text;
}

// "call: NAME: description" for a failed runtime call. `name` and `text` are
// what the runtime says about `result` (null where it says nothing); a result
// without a name is written as "RESULT_TYPE <number>", and a description that
// only repeats the name is left out.
inline std::string describe_failure(const char* call, const char* name, const char* text,
                                    const char* result_type, int result) {
  std::string described = std::string(call) + ": ";
  described +=
      name != nullptr ? std::string(name) : std::string(result_type) + " " + std::to_string(result);
  if (text != nullptr && (name == nullptr || std::strcmp(text, name) != 0))
    described += std::string(": ") + text;
  return described;
}

// The error a backend's operation returns when a runtime call fails:
// "STMPI: stream backend cuda: cuLaunchKernel: CUDA_ERROR_...: ...".
[[nodiscard]] [[gnu::cold]] inline int backend_error(const char* backend,
                                                     const std::string& failure) {
  return util::make_error(MPI_ERR_OTHER, "STMPI: stream backend %s: %s", backend, failure.c_str());
}

}  // namespace stmpi::stream
