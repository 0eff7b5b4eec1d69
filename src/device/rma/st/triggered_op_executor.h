// TriggeredOpExecutor: stream epochs with peers on other nodes, over
// TriggeredOps (triggered_ops.h: NIC triggered operations, deferred work,
// or the software engine). README.md in this folder, "Between nodes", has
// the table. Per epoch:
//   record    each put/accumulate to a kNet region is posted at once as a
//             triggered write/atomic: trigger counter T of the epoch,
//             threshold 1, completion counter C. Nothing moves yet.
//   post      per origin on another node a triggered store of "exposure
//             epoch k" into its stream_post word (counter P, threshold 1),
//             released by the stream (a host function: local signal stores
//             and add_counter(P)).
//   complete  the stream waits for every target's exposure word (local
//             memory: the targets' triggered stores land there), then adds
//             1 to T (T's doorbell, else a host function) - which releases
//             every write of the epoch - and the completion signals, posted
//             now on C with threshold = writes of the epoch, fire after the
//             last write completed.
//   wait      the stream waits on the local completion words.
// Inside a window that also has members on this node, MergedKernelExecutor
// runs the epoch and calls this one for the remote part (partner), so one
// epoch, in stream order, serves both (mixed groups).
//
// Resources: counters come from the TriggeredOps pool (STMPI_ST_COUNTERS),
// triggered-op slots from a process budget (STMPI_ST_TRIGGERED_OPS). An
// epoch holds them until its completion counter reached its final value;
// ThrottlePolicy says what happens when an epoch needs more than is free.
// Waits of epochs between nodes are host functions that also watch for
// failed operations and STMPI_ST_WAIT_TIMEOUT, so a broken chain reports
// an error at the window's next call instead of hanging the stream.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "device/rma/region.h"
#include "device/rma/st/epoch_plan.h"
#include "device/rma/st/executor.h"
#include "device/rma/st/triggered_ops.h"

namespace stmpi::dev::rma::st {

// Seed 001, section 5.2: who waits when counters or slots run out.
enum class ThrottlePolicy : uint8_t {
  kApplication,  // nobody: an epoch that does not fit fails (MPI_ERR_OTHER)
  kStatic,       // before reusing resources, wait for every outstanding epoch
  kAdaptive,     // reclaim each counter as soon as its operations completed
};

const char* throttle_policy_name(ThrottlePolicy policy);
// From STMPI_ST_THROTTLE.
ThrottlePolicy throttle_policy_setting();

// The process's TriggeredOps, chosen once by STMPI_ST_TRIGGER (auto: native,
// else deferred, else software); an error when an explicit choice is not
// available.
[[nodiscard]] int process_triggered_ops(TriggeredOps** out);

// Trigger counters held by every window of the process, now and at most.
void process_counters(uint64_t* in_use, uint64_t* max_in_use);

// Triggered-op statistics (per window, and per process in mpix).
struct TriggerStats {
  uint64_t posted = 0;          // triggered operations posted
  uint64_t fired = 0;           // fired and completed (counted when reclaimed)
  uint64_t software_fired = 0;  // of those, fired by the software engine
  uint64_t counters_in_use = 0;
  uint64_t counters_max_in_use = 0;
  uint64_t throttle_stalls = 0;  // times a call waited for resources
  uint64_t throttle_ns = 0;      // time those waits took
  // Epochs whose counters and slots a throttle wait reclaimed: static
  // reclaims every outstanding epoch at once, adaptive each as it completes.
  uint64_t throttle_reclaimed = 0;
  // Throttle waits that ended while earlier epochs of the window still held
  // resources (a counter reused before the others completed): 0 under static.
  uint64_t throttle_overlapped = 0;
};

// What the executor knows of the window (window ranks).
struct RemoteView {
  int rank = 0;
  std::vector<Region> control;  // per rank: its control block as reached from here
  std::vector<bool> remote;     // per rank: on another node
  uint64_t post0 = 0;           // offset of stream_post[0] in a control block
  uint64_t complete0 = 0;       // offset of stream_complete[0]
};

class TriggeredOpExecutor final : public EpochExecutor {
 public:
  TriggeredOpExecutor(RemoteView view, SignalWords words, TriggeredOps& nic, ThrottlePolicy policy);
  ~TriggeredOpExecutor() override;

  const char* name() const override { return "triggered-op"; }
  [[nodiscard]] int attach_stream(stream::Stream& stream) override;
  [[nodiscard]] int record(AccessPlan& plan, std::size_t index) override;
  [[nodiscard]] int post(const ExposurePlan& plan, stream::Stream& stream,
                         LaunchTally* tally) override;
  [[nodiscard]] int complete(AccessPlan& plan, stream::Stream& stream, uint64_t* retire_word,
                             LaunchTally* tally) override;
  [[nodiscard]] int wait(const ExposurePlan& plan, stream::Stream& stream,
                         LaunchTally* tally) override;

  // --- For MergedKernelExecutor (mixed windows) ---
  bool is_remote(int rank) const { return view_.remote[static_cast<std::size_t>(rank)]; }
  // post: one host function storing `local` (this node's origins) and
  // releasing the triggered exposure stores to the remote origins of `plan`.
  [[nodiscard]] int post_with(const ExposurePlan& plan, std::span<const stream::SignalWrite> local,
                              stream::Stream& stream, LaunchTally* tally);
  // complete, before the data moves: posts the completion signals of the
  // epoch's remote targets and sets plan.trigger_fn / trigger_arg, which the
  // host function moving the epoch's data calls last.
  [[nodiscard]] int arm(AccessPlan& plan);
  // A wait on the stream for `waits` (local words), as a host function that
  // reports failures and STMPI_ST_WAIT_TIMEOUT; `exposure`: the words are
  // exposure signals (else completion signals); `peers`: the rank of each.
  [[nodiscard]] int checked_wait(std::span<const stream::SignalWait> waits,
                                 std::span<const int> peers, bool exposure, stream::Stream& stream,
                                 LaunchTally* tally);
  // The first failure seen (fired operation, stalled wait), reported once.
  [[nodiscard]] int take_error();
  // Reclaims the resources of epochs whose operations completed; how many
  // epochs it reclaimed.
  std::size_t reclaim();
  // The same for every window of the process (counters and slots are the
  // process's, so a window's throttle wait also frees what other windows'
  // finished epochs hold); *held: whether any window still has outstanding
  // epochs, i.e. whether waiting can free anything.
  std::size_t reclaim_process(bool* held);
  TriggerStats stats();

 private:
  struct Epoch;     // counters and slots an epoch holds
  struct HostCall;  // a host function's arguments

  [[nodiscard]] int reserve(uint32_t ops, const char* what);
  [[nodiscard]] int open_access();
  // MPI_ERR_OTHER: a throttle wait for counters passed STMPI_ST_WAIT_TIMEOUT.
  [[nodiscard]] int counter_wait_expired(const char* epoch, const char* wanted) const;
  bool epoch_done(const Epoch& e);
  void release(Epoch& e);
  HostCall* new_call();
  static void run_call(void* arg);
  static void run_trigger(void* arg);
  void note_error(int err);
  std::string stall_text(const HostCall& call, std::size_t index);

  RemoteView view_;
  SignalWords words_;
  TriggeredOps& nic_;
  ThrottlePolicy policy_;
  std::unique_ptr<Epoch> open_;                     // the open access epoch's resources
  std::deque<std::unique_ptr<Epoch>> outstanding_;  // closed, not yet reclaimed
  std::deque<std::unique_ptr<HostCall>> calls_;     // enqueued host functions
  std::atomic<int> error_{0};
  std::atomic<bool> broken_{false};
  TriggerStats stats_;
  uint64_t access_epochs_ = 0;
};

}  // namespace stmpi::dev::rma::st
