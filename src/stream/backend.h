// Which backend serves stream handles that are not host streams, chosen once
// per process from STMPI_STREAM_BACKEND (auto | host | hip | cuda). Host
// streams (MPIX_Host_stream) work whatever the choice.
#pragma once

#include <memory>
#include <string>

#include "stream/gpu_runtime.h"
#include "stream/stream.h"

namespace stmpi::stream {

// Whether this library was built with the backend (host always is).
bool backend_built(BackendKind kind);

// Opens the runtime of a GPU backend. False, with the reason in `why`
// ("no CUDA device is present (cuInit: CUDA_ERROR_NO_DEVICE ...)"), when the
// backend is not built, its runtime library cannot be loaded, or it finds no
// device. Never crashes for want of a driver or device.
[[nodiscard]] bool open_gpu_runtime(BackendKind kind, std::unique_ptr<GpuRuntime>* out,
                                    std::string* why);

// Applies a setting. auto: the first GPU backend (hip, then cuda) that opens,
// else host, with `notes` saying why each GPU backend was passed over. An
// explicit GPU backend that does not open, or an unknown setting, is an
// MPI_ERR_OTHER error: "STMPI: stream backend cuda requested but ...".
[[nodiscard]] int choose_backend(const std::string& setting, BackendKind* kind,
                                 std::unique_ptr<GpuRuntime>* gpu, std::string* notes);

// The process's choice, made from the settings on first use and kept, error
// included. `gpu` is null for the host backend.
[[nodiscard]] int active_backend(BackendKind* kind, GpuRuntime** gpu);

// One line for messages and the info tool: "host (hip: ...; cuda: ...)".
std::string backend_summary();

// IPC mapping of device memory through the active GPU backend, for windows
// whose memory peers reach with kernels. MPI_ERR_OTHER under the host
// backend (host windows live in shared memory instead).
[[nodiscard]] int ipc_export(const void* ptr, IpcHandle* out);
[[nodiscard]] int ipc_open(const IpcHandle& handle, IpcMapping* out);
[[nodiscard]] int ipc_close(const IpcMapping& mapping);

}  // namespace stmpi::stream
