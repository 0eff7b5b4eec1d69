// GpuStream: the Stream over a user's hipStream_t or cudaStream_t. It turns
// each operation into one merged kernel (or, for a single word, a stream
// memory operation where the device has them) through the GpuRuntime; the
// kernels are in gpu_kernels.cu. The stream handle stays the user's.
#pragma once

#include <span>

#include "stream/gpu_runtime.h"
#include "stream/stream.h"

namespace stmpi::stream {

class GpuStream final : public Stream {
 public:
  GpuStream(GpuRuntime& runtime, void* handle) : runtime_(runtime), handle_(handle) {}

  BackendKind backend() const override { return runtime_.kind(); }
  void* handle() const override { return handle_; }

  [[nodiscard]] int launch(HostFn fn, void* arg) override;
  [[nodiscard]] int write_values(std::span<const SignalWrite> writes) override;
  [[nodiscard]] int wait_values(std::span<const SignalWait> waits, Cmp cmp) override;
  [[nodiscard]] int copy(std::span<const CopyRange> ranges) override;
  [[nodiscard]] int synchronize() override;
  // One epoch kernel (wait, copies, writes in one block) when the step fits
  // EpochParams and copies at most STMPI_STREAM_GPU_EPOCH_BYTES; else the
  // separate wait, copy and signal launches.
  [[nodiscard]] int wait_copy_signal(const EpochStep& step) override;
  using Stream::copy;

  // The runtime the stream belongs to (e.g. to register memory its kernels use).
  GpuRuntime& runtime() const { return runtime_; }

 private:
  GpuRuntime& runtime_;
  void* handle_;
};

// Blocks per copy row for a batch whose largest range is `max_bytes`.
unsigned copy_blocks_per_range(std::size_t max_bytes);

}  // namespace stmpi::stream
