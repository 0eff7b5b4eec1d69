// Where an RMA call lands: (target, target_disp, target_count,
// target_datatype) becomes a device region and the list of byte runs in it,
// checked against the target's window (or its attached memory).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <mpi.h>

#include "device/rma/region.h"

namespace stmpi::mpi {
struct Datatype;
struct Win;
}  // namespace stmpi::mpi

namespace stmpi::mpi::rma {

// Runs with room for a few inline, so that contiguous and simple strided
// targets need no heap.
class RunList {
 public:
  void push(int64_t offset, uint64_t bytes);
  std::span<const dev::rma::Run> span() const {
    return heap_.empty() ? std::span<const dev::rma::Run>(inline_.data(), size_)
                         : std::span<const dev::rma::Run>(heap_);
  }
  std::span<dev::rma::Run> mutable_span() {
    return heap_.empty() ? std::span<dev::rma::Run>(inline_.data(), size_)
                         : std::span<dev::rma::Run>(heap_);
  }
  int64_t low() const { return low_; }    // lowest byte touched (signed: may be before the window)
  int64_t high() const { return high_; }  // one past the highest

 private:
  std::array<dev::rma::Run, 4> inline_{};
  std::vector<dev::rma::Run> heap_;
  std::size_t size_ = 0;
  int64_t low_ = INT64_MAX;
  int64_t high_ = INT64_MIN;
};

struct TargetSpan {
  dev::rma::Region region;
  RunList runs;
};

// Resolves the target side of a call that moves `count` instances of
// `type` (count * type.size > 0) at displacement `disp` of `target`:
// MPI_ERR_DISP for a negative displacement, MPI_ERR_RMA_RANGE when any byte
// falls outside the target's window memory (or, for dynamic windows,
// outside one region it has attached).
[[nodiscard]] int resolve_target(const Win& win, int target, MPI_Aint disp, MPI_Count count,
                                 const Datatype& type, const char* function, TargetSpan* out);

// The packed form of `count` instances of `type` at `buf`: the buffer itself
// when contiguous, else packed into `storage`.
const char* packed_origin(const void* buf, MPI_Count count, const Datatype& type,
                          std::vector<char>& storage);

}  // namespace stmpi::mpi::rma
