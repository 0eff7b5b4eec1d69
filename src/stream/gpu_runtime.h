// GpuRuntime: what the stream module needs from a GPU runtime (HIP or the
// CUDA driver), loaded with dlopen so that libmpi never depends on one.
// GpuStream builds every stream operation from these primitives; the CUDA
// and HIP backends (cuda/, hip/) implement them. Calls are per enqueued
// operation, not per byte, so they are virtual.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "stream/stream.h"

namespace stmpi::stream {

enum class KernelId : uint8_t { kSignal, kWait, kCopy, kEpoch };

struct LaunchShape {
  unsigned grid_x = 1;
  unsigned grid_y = 1;
  unsigned block_x = 64;
};

// Device memory exported by one process for the others on the node.
struct IpcHandle {
  std::array<unsigned char, 64> bytes{};  // cudaIpcMemHandle_t / hipIpcMemHandle_t
  uint64_t offset = 0;                    // of the exported pointer in its allocation
};

struct IpcMapping {
  void* base = nullptr;  // what the runtime mapped (to close)
  void* ptr = nullptr;   // the exported pointer, in this process
};

class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;

  virtual BackendKind kind() const = 0;
  // For messages and the info tool: "cuda (driver 12040, 2 devices)".
  virtual std::string description() const = 0;
  // Whether the runtime knows `handle` as a stream (the null stream included
  // where the runtime has one).
  virtual bool is_stream(void* handle) = 0;
  // Single-word writes and waits as stream memory operations rather than kernels.
  virtual bool has_stream_mem_ops() const = 0;
  // Whether `ptr` is device memory the CPU cannot read (pageable, pinned and
  // managed memory are not; neither is an address the runtime does not know).
  virtual bool is_device_memory(const void* ptr) = 0;

  // `params` points to the kernel's parameter struct (kernel_params.h).
  [[nodiscard]] virtual int launch_kernel(void* stream, KernelId kernel, const LaunchShape& shape,
                                          void* params) = 0;
  [[nodiscard]] virtual int write_value(void* stream, uint64_t* addr, uint64_t value) = 0;
  [[nodiscard]] virtual int wait_value(void* stream, const volatile uint64_t* addr, uint64_t value,
                                       Cmp cmp) = 0;
  [[nodiscard]] virtual int launch_host_fn(void* stream, HostFn fn, void* arg) = 0;
  [[nodiscard]] virtual int synchronize(void* stream) = 0;

  [[nodiscard]] virtual int ipc_export(const void* ptr, IpcHandle* out) = 0;
  [[nodiscard]] virtual int ipc_open(const IpcHandle& handle, IpcMapping* out) = 0;
  [[nodiscard]] virtual int ipc_close(const IpcMapping& mapping) = 0;
  // Makes host memory (e.g. signal words in shared memory) reachable by kernels.
  [[nodiscard]] virtual int register_host(void* ptr, std::size_t bytes) = 0;
  [[nodiscard]] virtual int unregister_host(void* ptr) = 0;
};

}  // namespace stmpi::stream
