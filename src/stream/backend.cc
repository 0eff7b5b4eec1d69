#include "stream/backend.h"

#include <mutex>

#include <mpi.h>

#include "config.h"
#include "stream/settings.h"
#include "util/error.h"
#if STMPI_HAVE_CUDA_BACKEND
#include "stream/cuda/cuda_runtime.h"
#endif
#if STMPI_HAVE_HIP_BACKEND
#include "stream/hip/hip_runtime.h"
#endif

namespace stmpi::stream {
namespace {

struct ActiveBackend {
  std::once_flag once;
  bool ok = true;
  std::string error;
  BackendKind kind = BackendKind::kHost;
  std::unique_ptr<GpuRuntime> gpu;
  std::string notes;
};

// Never destroyed: GPU runtimes stay loaded until the process exits.
ActiveBackend& active() {
  static ActiveBackend* const state = new ActiveBackend;
  return *state;
}

#if STMPI_HAVE_CUDA_BACKEND
constexpr bool kCudaBuilt = true;
#else
constexpr bool kCudaBuilt = false;
#endif
#if STMPI_HAVE_HIP_BACKEND
constexpr bool kHipBuilt = true;
#else
constexpr bool kHipBuilt = false;
#endif

const char* compiler_of(BackendKind kind) { return kind == BackendKind::kCuda ? "nvcc" : "hipcc"; }

// choose_backend without the error code: false with the message in `error`.
bool choose(const std::string& setting, BackendKind* kind, std::unique_ptr<GpuRuntime>* gpu,
            std::string* notes, std::string* error) {
  notes->clear();
  if (setting == "host") {
    *kind = BackendKind::kHost;
    return true;
  }
  if (setting == "auto" || setting.empty()) {
    for (BackendKind candidate : {BackendKind::kHip, BackendKind::kCuda}) {
      std::string why;
      if (open_gpu_runtime(candidate, gpu, &why)) {
        *kind = candidate;
        return true;
      }
      if (!notes->empty()) *notes += "; ";
      *notes += std::string(backend_name(candidate)) + ": " + why;
    }
    *kind = BackendKind::kHost;
    return true;
  }
  for (BackendKind candidate : {BackendKind::kHip, BackendKind::kCuda}) {
    if (setting != backend_name(candidate)) continue;
    std::string why;
    if (!open_gpu_runtime(candidate, gpu, &why)) {
      *error = "STMPI: stream backend " + setting + " requested but " + why;
      return false;
    }
    *kind = candidate;
    return true;
  }
  *error = "STMPI_STREAM_BACKEND=" + setting + " is not one of auto, host, hip, cuda";
  return false;
}

}  // namespace

bool backend_built(BackendKind kind) {
  switch (kind) {
    case BackendKind::kHost: return true;
    case BackendKind::kHip: return kHipBuilt;
    case BackendKind::kCuda: return kCudaBuilt;
  }
  return false;
}

bool open_gpu_runtime(BackendKind kind, std::unique_ptr<GpuRuntime>* out, std::string* why) {
  if (!backend_built(kind)) {
    *why = std::string("this library was built without it (no working ") + compiler_of(kind) +
           " at configure time, or --without-" + backend_name(kind) + ")";
    return false;
  }
#if STMPI_HAVE_CUDA_BACKEND
  if (kind == BackendKind::kCuda) return cuda::open_runtime(out, why);
#endif
#if STMPI_HAVE_HIP_BACKEND
  if (kind == BackendKind::kHip) return hip::open_runtime(out, why);
#endif
  (void)out;
  *why = "not a GPU backend";
  return false;
}

int choose_backend(const std::string& setting, BackendKind* kind, std::unique_ptr<GpuRuntime>* gpu,
                   std::string* notes) {
  std::string error;
  if (!choose(setting, kind, gpu, notes, &error))
    return util::make_error(MPI_ERR_OTHER, "%s", error.c_str());
  return MPI_SUCCESS;
}

int active_backend(BackendKind* kind, GpuRuntime** gpu) {
  ActiveBackend& state = active();
  std::call_once(state.once, [&state] {
    state.ok = choose(settings().backend, &state.kind, &state.gpu, &state.notes, &state.error);
  });
  if (!state.ok) return util::make_error(MPI_ERR_OTHER, "%s", state.error.c_str());
  *kind = state.kind;
  *gpu = state.gpu.get();
  return MPI_SUCCESS;
}

std::string backend_summary() {
  BackendKind kind;
  GpuRuntime* gpu;
  if (active_backend(&kind, &gpu) != MPI_SUCCESS) return active().error;
  if (gpu != nullptr) return gpu->description();
  const std::string& notes = active().notes;
  return notes.empty() ? "host" : "host (" + notes + ")";
}

namespace {

int gpu_for_ipc(const char* what, GpuRuntime** gpu) {
  BackendKind kind;
  if (int err = active_backend(&kind, gpu); err != MPI_SUCCESS) return err;
  if (*gpu == nullptr)
    return util::make_error(MPI_ERR_OTHER, "%s needs a GPU stream backend (active: %s)", what,
                            backend_name(kind));
  return MPI_SUCCESS;
}

}  // namespace

int ipc_export(const void* ptr, IpcHandle* out) {
  GpuRuntime* gpu;
  if (int err = gpu_for_ipc("exporting device memory", &gpu); err != MPI_SUCCESS) return err;
  return gpu->ipc_export(ptr, out);
}

int ipc_open(const IpcHandle& handle, IpcMapping* out) {
  GpuRuntime* gpu;
  if (int err = gpu_for_ipc("mapping a peer's device memory", &gpu); err != MPI_SUCCESS) return err;
  return gpu->ipc_open(handle, out);
}

int ipc_close(const IpcMapping& mapping) {
  GpuRuntime* gpu;
  if (int err = gpu_for_ipc("unmapping a peer's device memory", &gpu); err != MPI_SUCCESS)
    return err;
  return gpu->ipc_close(mapping);
}

}  // namespace stmpi::stream
