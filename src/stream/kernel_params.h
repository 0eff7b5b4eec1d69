// Arguments of the merged GPU kernels (gpu_kernels.cu), shared by the device
// code (nvcc, hipcc) and the host code that launches it (g++, clang++). Each
// kernel takes one of these structs by value, so a launch needs no device
// memory for its arguments; a batch larger than a struct holds is split
// into several launches. All fit the 4 KiB kernel-argument limit.
#pragma once

#include <stdint.h>

namespace stmpi::stream::gpu {

inline constexpr unsigned kMaxSignalsPerLaunch = 64;
inline constexpr unsigned kMaxWaitsPerLaunch = 64;
inline constexpr unsigned kMaxCopiesPerLaunch = 40;

inline constexpr uint32_t kCmpGreaterEqual = 0;  // (int64_t)(word - value) >= 0
inline constexpr uint32_t kCmpEqual = 1;

// Thread i stores value[i] to *addr[i] (system scope, after a system fence).
struct SignalParams {
  uint32_t count;
  uint32_t unused;
  uint64_t* addr[kMaxSignalsPerLaunch];
  uint64_t value[kMaxSignalsPerLaunch];
};

// Thread i polls *addr[i] until it compares to value[i]; then a system fence.
struct WaitParams {
  uint32_t count;
  uint32_t cmp;
  const volatile uint64_t* addr[kMaxWaitsPerLaunch];
  uint64_t value[kMaxWaitsPerLaunch];
};

// Block row y copies bytes[y] from src[y] to dst[y]; the gridDim.x blocks of
// a row share the range (16-byte words when all three are 16-byte aligned).
struct CopyParams {
  uint32_t count;
  uint32_t unused;
  void* dst[kMaxCopiesPerLaunch];
  const void* src[kMaxCopiesPerLaunch];
  uint64_t bytes[kMaxCopiesPerLaunch];
};

// A 3-D halo exchange (26 neighbour directions, 26 targets) fits one launch.
inline constexpr unsigned kMaxEpochWaits = 32;
inline constexpr unsigned kMaxEpochCopies = 48;
inline constexpr unsigned kMaxEpochWrites = 33;  // the targets' completions and the retire word
inline constexpr unsigned kEpochThreads = 512;

// One block runs a whole epoch step (EpochStep): threads i < waits poll
// wait_addr[i]; after a barrier every thread copies its share of every
// range and fences; after a second barrier threads i < writes store
// write_value[i] to write_addr[i]. One launch instead of a wait, a copy and
// a signal launch, for epochs small enough for one block to copy.
struct EpochParams {
  uint32_t waits;
  uint32_t copies;
  uint32_t writes;
  uint32_t cmp;
  const volatile uint64_t* wait_addr[kMaxEpochWaits];
  uint64_t wait_value[kMaxEpochWaits];
  void* dst[kMaxEpochCopies];
  const void* src[kMaxEpochCopies];
  uint64_t bytes[kMaxEpochCopies];
  uint64_t* write_addr[kMaxEpochWrites];
  uint64_t write_value[kMaxEpochWrites];
};

static_assert(sizeof(SignalParams) <= 4096 && sizeof(WaitParams) <= 4096 &&
              sizeof(CopyParams) <= 4096 && sizeof(EpochParams) <= 4096);
static_assert(kMaxEpochWaits <= kEpochThreads && kMaxEpochWrites <= kEpochThreads);

inline constexpr const char* kSignalKernelName = "stmpi_signal_kernel";
inline constexpr const char* kWaitKernelName = "stmpi_wait_kernel";
inline constexpr const char* kCopyKernelName = "stmpi_copy_kernel";
inline constexpr const char* kEpochKernelName = "stmpi_epoch_kernel";

}  // namespace stmpi::stream::gpu
