// EpochExecutor: turns epoch plans (epoch_plan.h) into work that runs in
// stream order. StreamWindow (stream_window.h) keeps the epoch numbers and
// the plans and calls one executor per window:
//   post(plan, stream)      target: exposure epochs open; signal every origin
//   record(plan, op)        origin, at MPI_Put/MPI_Get/MPI_Accumulate time
//   complete(plan, stream)  origin: wait for every target's exposure, move
//                           the data, signal every target, retire the plan
//   wait(plan, stream)      target: wait for every origin's completion
// Every call returns once the work is enqueued; none waits for it.
//
// Two implementations share this contract:
//   MergedKernelExecutor (merged_kernel_executor.h)  inside a node: at most
//     one signal, one copy and one wait launch per epoch, on memory every
//     process maps;
//   TriggeredOpExecutor (triggered_op_executor.h)  between nodes: triggered
//     operations (the NIC's or the software engine's) released by one
//     counter per epoch; the merged-kernel executor hands it the part of an
//     epoch that concerns members on other nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "device/rma/st/epoch_plan.h"
#include "stream/stream.h"

namespace stmpi::dev::rma::st {

// Launches an executor enqueued, by kind (a merged operation is one launch
// whatever its number of entries; a GPU batch split over several kernels
// counts each kernel).
struct LaunchTally {
  uint64_t signal = 0;
  uint64_t copy = 0;
  uint64_t wait = 0;
};

// The stream signal words of a window, in this process's mapping of the
// window segment (window_segment.h: stream_post, stream_complete).
class SignalWords {
 public:
  SignalWords() = default;
  // `control[r]`: rank r's control block; `post0`, `complete0`: offsets of
  // stream_post[0] and stream_complete[0] in a block.
  SignalWords(std::vector<char*> control, std::size_t post0, std::size_t complete0)
      : control_(std::move(control)), post0_(post0), complete0_(complete0) {}

  // In origin `owner`'s block: exposure epochs `target` has opened to it.
  uint64_t* post(int owner, int target) const { return word(owner, post0_, target); }
  // In target `owner`'s block: access epochs `origin` has closed at it.
  uint64_t* complete(int owner, int origin) const { return word(owner, complete0_, origin); }

 private:
  uint64_t* word(int owner, std::size_t base, int from) const {
    return reinterpret_cast<uint64_t*>(control_[static_cast<std::size_t>(owner)] + base +
                                       8 * static_cast<std::size_t>(from));
  }

  std::vector<char*> control_;
  std::size_t post0_ = 0;
  std::size_t complete0_ = 0;
};

class EpochExecutor {
 public:
  virtual ~EpochExecutor() = default;
  virtual const char* name() const = 0;

  // Once per stream before the window first enqueues on it: e.g. make the
  // window's memory reachable from a GPU stream.
  [[nodiscard]] virtual int attach_stream(stream::Stream& stream) = 0;
  // `plan.ops[index]` was just recorded. MPI_ERR_RMA_FLAVOR when the
  // executor cannot reach the op's target memory.
  [[nodiscard]] virtual int record(AccessPlan& plan, std::size_t index) = 0;
  [[nodiscard]] virtual int post(const ExposurePlan& plan, stream::Stream& stream,
                                 LaunchTally* tally) = 0;
  // The last thing the stream does for the plan is to store `plan.seq` to
  // `*retire_word` (host memory of this process): after that the plan may
  // be reused.
  [[nodiscard]] virtual int complete(AccessPlan& plan, stream::Stream& stream,
                                     uint64_t* retire_word, LaunchTally* tally) = 0;
  [[nodiscard]] virtual int wait(const ExposurePlan& plan, stream::Stream& stream,
                                 LaunchTally* tally) = 0;

 protected:
  EpochExecutor() = default;
};

}  // namespace stmpi::dev::rma::st
