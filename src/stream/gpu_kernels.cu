// The merged kernels of the GPU stream backends, compiled by nvcc (CUDA) and
// by hipcc (HIP, as `-x hip`) into a device image that is embedded in libmpi
// and loaded at run time (cuModuleLoadData / hipModuleLoadData). One launch
// of each serves a whole epoch: all its signal stores, all its copies, all
// its waits. Arguments are the structs of kernel_params.h, passed by value.
#if defined(__HIP__)
#include <hip/hip_runtime.h>
#endif

#include "stream/kernel_params.h"

using stmpi::stream::gpu::CopyParams;
using stmpi::stream::gpu::EpochParams;
using stmpi::stream::gpu::SignalParams;
using stmpi::stream::gpu::WaitParams;

namespace {

// Signal words are read and written with relaxed system-scope accesses: the
// writer may be another process's GPU, a CPU, or a NIC. (In PTX, volatile
// accesses are relaxed.sys.)
__device__ inline uint64_t load_word(const volatile uint64_t* word) {
#if defined(__HIP__)
  return __hip_atomic_load(const_cast<uint64_t*>(word), __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_SYSTEM);
#else
  return *word;
#endif
}

__device__ inline void store_word(uint64_t* word, uint64_t value) {
#if defined(__HIP__)
  __hip_atomic_store(word, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
#else
  *static_cast<volatile uint64_t*>(word) = value;
#endif
}

__device__ inline void backoff() {
#if defined(__HIP__)
  __builtin_amdgcn_s_sleep(8);
#else
  __nanosleep(256);
#endif
}

__device__ inline bool satisfied(uint64_t word, uint64_t target, uint32_t cmp) {
  return cmp == stmpi::stream::gpu::kCmpEqual ? word == target
                                              : static_cast<int64_t>(word - target) >= 0;
}

}  // namespace

// Thread i stores signal i. The system-scope fence first makes everything
// this stream wrote before (the copies of the epoch) visible to the peer
// before it can see the signal.
extern "C" __global__ void stmpi_signal_kernel(SignalParams params) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= params.count) return;
  __threadfence_system();
  store_word(params.addr[i], params.value[i]);
}

// Thread i polls word i. The fence after the wait keeps later work from
// reading data older than the signal.
extern "C" __global__ void stmpi_wait_kernel(WaitParams params) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= params.count) return;
  while (!satisfied(load_word(params.addr[i]), params.value[i], params.cmp)) backoff();
  __threadfence_system();
}

// Threads first..bytes of the whole grid or block copy one range, 16 bytes
// per thread and step when dst, src and length allow.
__device__ inline void copy_range(char* dst, const char* src, uint64_t bytes, uint64_t first,
                                  uint64_t stride) {
  uint64_t done = 0;
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0) {
    const uint64_t words = bytes / 16;
    uint4* dst16 = reinterpret_cast<uint4*>(dst);
    const uint4* src16 = reinterpret_cast<const uint4*>(src);
    for (uint64_t k = first; k < words; k += stride) dst16[k] = src16[k];
    done = words * 16;
  }
  for (uint64_t k = done + first; k < bytes; k += stride) dst[k] = src[k];
}

// Row blockIdx.y copies range y; the gridDim.x blocks of the row stride over
// it, 16 bytes per thread and step when dst, src and length allow.
extern "C" __global__ void stmpi_copy_kernel(CopyParams params) {
  const unsigned range = blockIdx.y;
  if (range >= params.count) return;
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  copy_range(static_cast<char*>(params.dst[range]), static_cast<const char*>(params.src[range]),
             params.bytes[range], first, stride);
}

// A whole epoch step in one block: the waits, then the copies, then the
// writes. Each thread fences its own copies at system scope before the
// barrier that the writing threads pass, so a peer that sees a write sees
// every byte of the epoch.
extern "C" __global__ void stmpi_epoch_kernel(EpochParams params) {
  const unsigned t = threadIdx.x;
  if (t < params.waits) {
    while (!satisfied(load_word(params.wait_addr[t]), params.wait_value[t], params.cmp)) backoff();
    __threadfence_system();
  }
  __syncthreads();
  for (uint32_t r = 0; r < params.copies; ++r)
    copy_range(static_cast<char*>(params.dst[r]), static_cast<const char*>(params.src[r]),
               params.bytes[r], t, blockDim.x);
  __threadfence_system();
  __syncthreads();
  if (t < params.writes) store_word(params.write_addr[t], params.write_value[t]);
}
