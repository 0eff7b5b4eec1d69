// PersistentEpoch: a stream epoch of one window at this process recorded
// once and started many times (MPIX_Win_epoch_init, _commit, _start_stream
// in src/mpi/mpix). One start is the whole step of a PSCW exchange: signal
// the origins of the exposure part that the window is open to them, wait
// for the targets of the access part, move the recorded data, signal the
// targets, wait for the origins' completions.
//
// Inside a node, without accumulates, the signals, waits and copies are
// built once, at commit, as three epoch steps with base epoch numbers; each
// start enqueues them as one stream program (stream::StepProgram) whose
// bias is the start's number, so a start costs the CPU a check of the epoch
// counts and one enqueue, and a host stream runs it as one operation. The
// k-th start matches the peers' k-th stream epochs exactly as the epochs of
// MPIX_Win_post_stream / MPIX_Win_complete_stream would (same counts, same
// signal words), so peers may use either form.
//
// Otherwise (members on other nodes, accumulates) a start replays the
// recorded calls through the window's ordinary stream epoch (post, start,
// record, complete, wait): the same results, at the per-epoch cost. The
// same happens for a start whose epoch counts moved apart (other stream
// epochs of the window touched only some peers) while earlier starts are
// still queued; once they ran, the base numbers are moved and starts are
// programs again.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "device/rma/st/epoch_plan.h"
#include "device/rma/st/stream_window.h"
#include "stream/stream.h"

namespace stmpi::dev::rma::st {

class PersistentEpoch {
 public:
  // `origins`: the exposure part (window ranks, each at most once);
  // `plan`: the access part as StreamWindow::end_recording() handed it
  // over. Either may be empty. MPI_ERR_NO_MEM, else MPI_SUCCESS.
  [[nodiscard]] static int create(StreamWindow& window, std::vector<int> origins,
                                  std::unique_ptr<AccessPlan> plan,
                                  std::unique_ptr<PersistentEpoch>* out);
  // Call drain() first.
  ~PersistentEpoch() = default;
  PersistentEpoch(const PersistentEpoch&) = delete;
  PersistentEpoch& operator=(const PersistentEpoch&) = delete;

  // Enqueues one run of the epoch on `stream`; returns once it is enqueued.
  [[nodiscard]] int start(stream::Stream& stream);
  // Waits until the streams ran every start enqueued as a program.
  void drain();

  // Whether starts are enqueued as one program (inside a node, no accumulates).
  bool programmed() const { return programmed_; }
  uint64_t starts() const { return starts_; }
  uint64_t replayed() const { return replayed_; }

 private:
  PersistentEpoch(StreamWindow& window, std::vector<int> origins, std::unique_ptr<AccessPlan> plan)
      : window_(window), origins_(std::move(origins)), plan_(std::move(plan)) {}
  void build_program();
  // Whether every peer's epoch count is where the program's base numbers
  // and `bias_` put it.
  bool counts_in_step();
  void rebase();
  bool idle() const;
  [[nodiscard]] int start_program(stream::Stream& stream);
  [[nodiscard]] int replay(stream::Stream& stream);

  StreamWindow& window_;
  std::vector<int> origins_;
  std::unique_ptr<AccessPlan> plan_;
  bool programmed_ = false;
  uint64_t starts_ = 0;
  uint64_t replayed_ = 0;
  // The program: base epoch numbers by peer (origins_, plan_->targets), the
  // steps' arrays holding them, and the bias of the last start.
  std::vector<uint64_t> exposure_base_;
  std::vector<uint64_t> access_base_;
  uint64_t bias_ = 0;
  std::vector<stream::SignalWrite> posts_;          // step 1: to every origin
  std::vector<stream::SignalWait> post_waits_;      // step 2: from every target ...
  std::vector<stream::CopyRange> copies_;           // ... the recorded puts and gets ...
  std::vector<stream::SignalWrite> completes_;      // ... and completion to every target
  std::vector<stream::SignalWait> complete_waits_;  // step 3: from every origin
  std::array<stream::EpochStep, 3> steps_{};
  LaunchTally program_tally_;  // the launches a host stream counts per start
  // Slots of streams that got programs, with the last issue number on each.
  std::vector<std::pair<int, uint64_t>> issued_;
};

}  // namespace stmpi::dev::rma::st
