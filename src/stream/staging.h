// Staging: host copies of device buffers for operations whose data the CPU
// moves. MPI's point-to-point and collective paths read and write host
// memory only; an operation enqueued on a GPU stream with a buffer in device
// memory (MPICH's MPIX_Send_enqueue(d_x, ...) on a cudaStream_t) runs on a
// staging buffer instead, and the stream itself copies between the two, in
// stream order:
//
//   stage()        (CPU)    a host buffer for [device, device + bytes), from
//                           a pool of buffers registered for the stream's
//                           kernels; nothing at all when the stream is not a
//                           GPU stream or the memory is not device memory
//                           (for tests, STMPI_STREAM_STAGE_HOST makes host
//                           streams stage every buffer, unregistered)
//   copy_in()      (stream) device -> host: before a send reads the buffer,
//                           or before a receive into a buffer with gaps (the
//                           gaps then keep their values on the way back)
//   copy_out()     (stream) host -> device, after the receive completed
//   release_after()(stream) the buffers go back to the pool once the stream
//                           ran everything enqueued before
//
// Copies are the stream's own merged copy kernel (the staging memory is
// registered, so kernels reach it), never a CPU copy.
#pragma once

#include <cstddef>
#include <vector>

namespace stmpi::stream {

class Stream;

struct Staged {
  void* device = nullptr;  // the user's buffer (start of the staged span)
  char* host = nullptr;    // its host copy; null: nothing staged
  std::size_t bytes = 0;
  std::size_t capacity = 0;  // of the pool buffer

  explicit operator bool() const { return host != nullptr; }
  // The host address standing for `p`, an address inside the staged span
  // (or p itself when nothing is staged).
  template <typename T>
  T* host_address(T* p) const {
    if (host == nullptr || p == nullptr) return p;
    return reinterpret_cast<T*>(
        host + (reinterpret_cast<const char*>(p) - static_cast<const char*>(device)));
  }
};

// Stages [device, device + bytes) when `stream` is a GPU stream and that is
// device memory, or a host stream under STMPI_STREAM_STAGE_HOST; leaves *out
// empty otherwise. MPI_SUCCESS or the error of
// registering a new pool buffer.
[[nodiscard]] int stage(Stream& stream, void* device, std::size_t bytes, Staged* out);
[[nodiscard]] int copy_in(Stream& stream, const Staged& staged);
[[nodiscard]] int copy_out(Stream& stream, const Staged& staged);
// Enqueues a host function that returns the buffers to the pool (empty
// entries are skipped; an empty list enqueues nothing). On failure the
// buffers are returned at once.
[[nodiscard]] int release_after(Stream& stream, std::vector<Staged> staged);
// Returns a buffer to the pool now (the CPU knows no stream still uses it).
void release_now(Staged& staged);

// Pool statistics, for tests: buffers allocated and buffers in the pool.
struct StagingCounts {
  std::size_t allocated = 0;
  std::size_t pooled = 0;
};
StagingCounts staging_counts();
// Unregisters and frees the pooled buffers (at finalize; buffers still out
// are freed when they come back).
void free_staging_pool();

}  // namespace stmpi::stream
