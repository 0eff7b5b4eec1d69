// MergedKernelExecutor: the intra-node executor. Every process of the window
// maps the window segment (signal words and, for MPI_Win_allocate and
// MPI_Win_allocate_shared, the window memory), so a stream reaches peers by
// plain stores and copies. Per epoch it enqueues, whatever the number of
// peers or RMA calls:
//   post      one signal launch: stores "exposure epoch k" to every origin;
//   complete  one wait launch (every target's exposure), one copy launch
//             (every put and get of the epoch; with accumulates, see below),
//             one signal launch (every target's "epoch k complete", and the
//             plan's retire word);
//   wait      one wait launch (every origin's completion word).
// Inside a node without accumulates the three launches of complete are one
// stream step (Stream::wait_copy_signal): one queued operation on a host
// stream, three launches on a GPU stream; the step's arrays live in the
// plan, which the step's last write (the retire word) releases.
// On a host stream an epoch with accumulates moves all its data in one host
// function (copies, then accumulates, each element atomic through the
// target's accumulate lock or CPU atomics). On a GPU stream the copies are
// one copy kernel and the accumulates a host function after it, so with a
// GPU stream an accumulate's origin buffer must be host-accessible memory.
// With a GPU stream the window segment and the retire words are registered
// with the GPU runtime on first use, so kernels store and copy into them.
#pragma once

#include <cstddef>
#include <vector>

#include "device/rma/st/executor.h"
#include "stream/gpu_runtime.h"

namespace stmpi::dev::rma::st {

class TriggeredOpExecutor;

// Host memory GPU kernels of this executor must reach.
struct HostRange {
  void* addr = nullptr;
  std::size_t bytes = 0;
};

class MergedKernelExecutor final : public EpochExecutor {
 public:
  MergedKernelExecutor(int rank, SignalWords words, std::vector<HostRange> host_memory)
      : rank_(rank), words_(std::move(words)), host_memory_(std::move(host_memory)) {}
  ~MergedKernelExecutor() override;

  const char* name() const override { return "merged-kernel"; }
  // Windows with members on other nodes: ops to kNet regions, signals to
  // remote peers and the waits go through `remote` (mixed groups: one
  // epoch, in stream order; see triggered_op_executor.h).
  void set_partner(TriggeredOpExecutor* remote) { remote_ = remote; }
  [[nodiscard]] int attach_stream(stream::Stream& stream) override;
  [[nodiscard]] int record(AccessPlan& plan, std::size_t index) override;
  [[nodiscard]] int post(const ExposurePlan& plan, stream::Stream& stream,
                         LaunchTally* tally) override;
  [[nodiscard]] int complete(AccessPlan& plan, stream::Stream& stream, uint64_t* retire_word,
                             LaunchTally* tally) override;
  [[nodiscard]] int wait(const ExposurePlan& plan, stream::Stream& stream,
                         LaunchTally* tally) override;

 private:
  // complete() inside a node without accumulates: one stream step.
  [[nodiscard]] int complete_in_one_step(AccessPlan& plan, stream::Stream& stream,
                                         uint64_t* retire_word, LaunchTally* tally);
  [[nodiscard]] int move_data(AccessPlan& plan, stream::Stream& stream, LaunchTally* tally);

  int rank_;
  SignalWords words_;
  std::vector<HostRange> host_memory_;
  stream::GpuRuntime* registered_with_ = nullptr;
  TriggeredOpExecutor* remote_ = nullptr;
  std::vector<int> peers_;                   // scratch: the rank of each wait
  std::vector<stream::SignalWrite> writes_;  // scratch: the stream copies entries
  std::vector<stream::SignalWait> waits_;
};

}  // namespace stmpi::dev::rma::st
