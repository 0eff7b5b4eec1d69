#include "stream/gpu_stream.h"

#include <algorithm>

#include <mpi.h>

#include "stream/kernel_params.h"
#include "stream/settings.h"
#include "util/error.h"

namespace stmpi::stream {
namespace {

constexpr unsigned kCopyThreads = 256;
constexpr std::size_t kCopyBytesPerBlock = std::size_t{kCopyThreads} * 16 * 8;
constexpr unsigned kMaxCopyBlocksPerRange = 64;

unsigned threads_for(std::size_t count) {
  // Whole warps/wavefronts: 64 covers both.
  return static_cast<unsigned>((count + 63) / 64 * 64);
}

}  // namespace

unsigned copy_blocks_per_range(std::size_t max_bytes) {
  const std::size_t blocks = (max_bytes + kCopyBytesPerBlock - 1) / kCopyBytesPerBlock;
  return static_cast<unsigned>(std::clamp<std::size_t>(blocks, 1, kMaxCopyBlocksPerRange));
}

int GpuStream::launch(HostFn fn, void* arg) {
  if (fn == nullptr) [[unlikely]]
    return util::make_error(MPI_ERR_ARG, "fn is NULL (%s stream %p)", backend_name(backend()),
                            handle_);
  if (int err = runtime_.launch_host_fn(handle_, fn, arg); err != MPI_SUCCESS) return err;
  count_launch(OpKind::kUser);
  return MPI_SUCCESS;
}

int GpuStream::write_values(std::span<const SignalWrite> writes) {
  if (writes.size() == 1 && runtime_.has_stream_mem_ops()) {
    if (int err = runtime_.write_value(handle_, writes[0].addr, writes[0].value);
        err != MPI_SUCCESS)
      return err;
    count_launch(OpKind::kSignal);
    return MPI_SUCCESS;
  }
  while (!writes.empty()) {
    const std::size_t n = std::min<std::size_t>(writes.size(), gpu::kMaxSignalsPerLaunch);
    gpu::SignalParams params{};
    params.count = static_cast<uint32_t>(n);
    for (std::size_t i = 0; i < n; ++i) {
      params.addr[i] = writes[i].addr;
      params.value[i] = writes[i].value;
    }
    const LaunchShape shape{1, 1, threads_for(n)};
    if (int err = runtime_.launch_kernel(handle_, KernelId::kSignal, shape, &params);
        err != MPI_SUCCESS)
      return err;
    count_launch(OpKind::kSignal);
    writes = writes.subspan(n);
  }
  return MPI_SUCCESS;
}

int GpuStream::wait_values(std::span<const SignalWait> waits, Cmp cmp) {
  if (waits.size() == 1 && runtime_.has_stream_mem_ops()) {
    if (int err = runtime_.wait_value(handle_, waits[0].addr, waits[0].value, cmp);
        err != MPI_SUCCESS)
      return err;
    count_launch(OpKind::kWait);
    return MPI_SUCCESS;
  }
  while (!waits.empty()) {
    const std::size_t n = std::min<std::size_t>(waits.size(), gpu::kMaxWaitsPerLaunch);
    gpu::WaitParams params{};
    params.count = static_cast<uint32_t>(n);
    params.cmp = cmp == Cmp::kEqual ? gpu::kCmpEqual : gpu::kCmpGreaterEqual;
    for (std::size_t i = 0; i < n; ++i) {
      params.addr[i] = waits[i].addr;
      params.value[i] = waits[i].value;
    }
    const LaunchShape shape{1, 1, threads_for(n)};
    if (int err = runtime_.launch_kernel(handle_, KernelId::kWait, shape, &params);
        err != MPI_SUCCESS)
      return err;
    count_launch(OpKind::kWait);
    waits = waits.subspan(n);
  }
  return MPI_SUCCESS;
}

int GpuStream::copy(std::span<const CopyRange> ranges) {
  while (!ranges.empty()) {
    gpu::CopyParams params{};
    std::size_t used = 0;
    std::size_t max_bytes = 0;
    while (used < ranges.size() && params.count < gpu::kMaxCopiesPerLaunch) {
      const CopyRange& range = ranges[used++];
      if (range.bytes == 0) continue;
      params.dst[params.count] = range.dst;
      params.src[params.count] = range.src;
      params.bytes[params.count] = range.bytes;
      ++params.count;
      max_bytes = std::max(max_bytes, range.bytes);
    }
    ranges = ranges.subspan(used);
    if (params.count == 0) continue;
    const LaunchShape shape{copy_blocks_per_range(max_bytes), params.count, kCopyThreads};
    if (int err = runtime_.launch_kernel(handle_, KernelId::kCopy, shape, &params);
        err != MPI_SUCCESS)
      return err;
    count_launch(OpKind::kCopy);
  }
  return MPI_SUCCESS;
}

int GpuStream::wait_copy_signal(const EpochStep& step) {
  std::size_t bytes = 0;
  for (const CopyRange& range : step.copies) bytes += range.bytes;
  const std::size_t limit = settings().gpu_epoch_bytes;
  if (limit == 0 || bytes > limit || step.waits.size() > gpu::kMaxEpochWaits ||
      step.copies.size() > gpu::kMaxEpochCopies || step.writes.size() > gpu::kMaxEpochWrites)
    return Stream::wait_copy_signal(step);
  gpu::EpochParams params{};
  params.cmp = step.cmp == Cmp::kEqual ? gpu::kCmpEqual : gpu::kCmpGreaterEqual;
  params.waits = static_cast<uint32_t>(step.waits.size());
  for (std::size_t i = 0; i < step.waits.size(); ++i) {
    params.wait_addr[i] = step.waits[i].addr;
    params.wait_value[i] = step.waits[i].value;
  }
  for (const CopyRange& range : step.copies) {
    if (range.bytes == 0) continue;
    params.dst[params.copies] = range.dst;
    params.src[params.copies] = range.src;
    params.bytes[params.copies] = range.bytes;
    ++params.copies;
  }
  params.writes = static_cast<uint32_t>(step.writes.size());
  for (std::size_t i = 0; i < step.writes.size(); ++i) {
    params.write_addr[i] = step.writes[i].addr;
    params.write_value[i] = step.writes[i].value;
  }
  const LaunchShape shape{1, 1, gpu::kEpochThreads};
  if (int err = runtime_.launch_kernel(handle_, KernelId::kEpoch, shape, &params);
      err != MPI_SUCCESS)
    return err;
  // One merged launch: counted as the epoch's copy launch.
  count_launch(OpKind::kCopy);
  return MPI_SUCCESS;
}

int GpuStream::synchronize() { return runtime_.synchronize(handle_); }

}  // namespace stmpi::stream
