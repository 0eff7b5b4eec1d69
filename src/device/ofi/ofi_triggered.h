// NIC triggered operations over libfabric: the TriggeredOps of the
// stream-triggered executor between nodes (device/rma/st,
// triggered_op_executor.h), for providers that have them.
//
// Two paths, each taken only where the provider says it has it:
//   native    data calls with FI_TRIGGER and a struct fi_triggered_context
//             (FI_TRIGGER_THRESHOLD on the trigger counter): fi_writemsg,
//             fi_atomicmsg. Such an op completes on the counter bound to the
//             endpoint it was posted on, so every counter of the pool that
//             serves as a completion counter gets an endpoint of its own
//             (opened on first use, bound to the network module's RMA address
//             vector, so it reaches the targets' window registrations);
//   deferred  fi_control(&domain->fid, FI_QUEUE_WORK) with struct
//             fi_deferred_work (FI_OP_WRITE, FI_OP_ATOMIC, FI_OP_CNTR_ADD),
//             completion counter always set; one endpoint for all of them.
// Native needs FI_TRIGGER in the capabilities fi_getinfo returns; deferred a
// successful FI_QUEUE_WORK probe (a counter add on a scratch counter), done
// once per domain. Without them open() answers MPI_ERR_UNSUPPORTED_OPERATION
// and the executor uses the software trigger engine.
//
// Counters and op slots are one bounded pool per domain (STMPI_ST_COUNTERS,
// STMPI_ST_TRIGGERED_OPS). The executor sees 64-bit counter values; the
// provider's counter may be narrower (sockets: 32-bit signed, thresholds cast
// to int), so each counter keeps a base: value = base + provider value, and a
// counter that nothing is pending on is reset (base += its value) before a
// threshold or an add would pass STMPI_OFI_ST_COUNTER_LIMIT. A released counter is
// reset to 0 and reused, unless operations are still queued on it or still
// owe it a completion (a broken chain): such a counter is retired from the
// pool for good, since a reset could fire what is queued on it.
//
// Every op and signal is posted with FI_DELIVERY_COMPLETE, so a completion
// counter counts data visible at the target and a signal chained on it
// never overtakes the data. Failed operations surface in first_error() with
// the provider's text (errors reach the pool's CQ and the error counts of
// the counters), never as a silent hang.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_trigger.h>
#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "device/rma/st/triggered_ops.h"

namespace stmpi::dev::ofi {

class Ofi;

// The pool's budget: STMPI_ST_COUNTERS, STMPI_ST_TRIGGERED_OPS (posted
// operations, as the executor counts them: one per post_* call) and
// STMPI_OFI_ST_COUNTER_LIMIT by default.
struct TriggeredBudget {
  int counters = 256;
  int ops = 16384;
  uint64_t counter_limit = uint64_t{1} << 30;
};
TriggeredBudget budget_from_settings();

// What happened in the pool (per process).
struct TriggeredStats {
  uint64_t posted = 0;      // provider operations posted (writes, atomics, signals)
  uint64_t ops_in_use = 0;  // post_* calls whose completion counter is not released
  uint64_t counters_in_use = 0;
  uint64_t max_counters_in_use = 0;
  uint64_t rotations = 0;   // counters reset in place to stay below the limit
  uint64_t retired = 0;     // counters released with work still queued on them
  uint64_t errors = 0;      // failed operations seen
  uint64_t host_fired = 0;  // accumulates the NIC cannot do, run by the host
};

// Runs an accumulate through the device's kNet path (the shared locked
// accumulate); handed over by OfiRma::triggered_ops (netmod::HostRma), which
// serializes it with the MPI thread's network operations.
using HostAccumulate = int (*)(const rma::Region& region, std::span<const rma::Run> runs,
                               const rma::AccumulateOp& acc, const void* in);
// Reads `runs` of `region` into `out` (packed), complete on return; set the
// same way.
using HostGet = int (*)(const rma::Region& region, std::span<const rma::Run> runs, void* out);

class TriggeredNic final : public rma::st::TriggeredOps {
 public:
  // Whether the provider of `ofi` has `mode` (kNative or kDeferred; probed
  // once, cached in the pool of that mode). 0, or MPI_ERR_UNSUPPORTED_OPERATION with a message.
  [[nodiscard]] static int open(Ofi& ofi, rma::st::TriggerMode mode, const TriggeredBudget& budget,
                                std::unique_ptr<TriggeredNic>* out);
  ~TriggeredNic() override;

  [[nodiscard]] int acquire_counter(CounterId* out, bool* available) override;
  void release_counter(CounterId id) override;
  [[nodiscard]] int post_write(const rma::Region& region, std::span<const rma::Run> runs,
                               std::span<const rma::st::OriginPiece> origin, CounterId trigger,
                               uint64_t threshold, CounterId completion) override;
  [[nodiscard]] int post_accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                                    std::span<const rma::st::OriginPiece> origin,
                                    const rma::AccumulateOp& acc, CounterId trigger,
                                    uint64_t threshold, CounterId completion) override;
  // Reads run on the host (ofi_triggered_host.cc) like host accumulates.
  [[nodiscard]] int post_read(const rma::Region& region, std::span<const rma::Run> runs,
                              std::span<const rma::st::OriginPiece> dest, CounterId trigger,
                              uint64_t threshold, CounterId completion) override;
  [[nodiscard]] int post_signal(const rma::Region& region, uint64_t offset, uint64_t value,
                                CounterId trigger, uint64_t threshold,
                                CounterId completion) override;
  uint64_t* doorbell(CounterId id) override;
  [[nodiscard]] int add_counter(CounterId id, uint64_t value) override;
  uint64_t read_counter(CounterId id) override;
  int first_error(CounterId id) override;

  rma::st::TriggerMode mode() const override { return mode_; }
  // Accumulates the NIC cannot apply atomically with the target's other
  // origins (anything but aligned 8-byte integers, or what fi_atomicvalid
  // refuses) wait on their trigger counter here and run through `fn` when
  // add_counter (or a poll) sees it reach their threshold; their completion
  // is then added to the completion counter, so chains behave the same.
  void set_host_accumulate(HostAccumulate fn);
  void set_host_get(HostGet fn);
  TriggeredStats stats();
  // Operations that may still be posted (STMPI_ST_TRIGGERED_OPS less those in use).
  std::size_t ops_free();

 private:
  // One provider operation: its context, its description and its operands
  // stay here until the counter it completes on is released.
  static constexpr int kMaxIov = 8;
  struct Slot {
    // native: the op's context (the provider may use all of fi_context2).
    union {
      fi_context2 raw;
      fi_triggered_context trig;
    } ctx{};
    fi_deferred_work work{};  // deferred: its context is the op's context
    fi_op_rma rma{};
    fi_op_atomic atomic{};
    fi_op_cntr cntr_op{};
    iovec iov[kMaxIov]{};
    fi_rma_iov rma_iov[kMaxIov]{};
    fi_ioc ioc[kMaxIov]{};
    fi_rma_ioc rma_ioc[kMaxIov]{};
    uint64_t operand = 0;  // a signal's value (read when it fires)
    CounterId trigger = 0;
    CounterId completion = 0;
    int target = -1;
    bool atomic_op = false;
  };
  // An accumulate or a read the host runs when its trigger counter is reached.
  struct HostOp {
    bool read = false;
    uint64_t threshold = 0;  // value scale of the trigger counter
    rma::Region region;
    std::vector<rma::Run> runs;
    // Filled when it fires: the origin, read then; a read's data, packed.
    std::vector<char> origin;
    std::vector<rma::st::OriginPiece> pieces;
    rma::AccumulateOp acc;
    CounterId trigger = 0;
    CounterId completion = 0;
  };
  // A piece of origin data copied into its operation's staging buffer when
  // the trigger counter is bumped to `threshold` (add_counter): the stream
  // may change the origin as soon as the bump returns, while the NIC reads
  // the buffer later.
  struct StageTask {
    uint64_t threshold = 0;
    const char* src = nullptr;
    char* dst = nullptr;
    uint64_t bytes = 0;
  };
  struct Counter {
    fid_cntr* cntr = nullptr;
    fid_ep* ep = nullptr;           // native: ops completing on this counter
    uint64_t base = 0;              // value = base + provider value
    uint64_t max_threshold = 0;     // highest threshold posted on it (value scale)
    uint64_t added = 0;             // by add_counter
    uint64_t completions_owed = 0;  // ops posted to complete on it
    uint64_t errors_seen = 0;       // provider error count already attributed
    // When its error count rose with no completion-queue entry naming the op
    // yet (the provider raises the count first); epoch when none is pending.
    std::chrono::steady_clock::time_point unexplained_since{};
    uint32_t units = 0;                            // post_* calls completing on it (the budget)
    std::vector<Slot*> slots;                      // slots completing on it
    std::vector<CounterId> joins;                  // private counters released with it
    std::vector<HostOp> host_ops;                  // waiting on it (as trigger)
    std::vector<StageTask> stage;                  // copies its bumps do (as trigger)
    std::vector<std::unique_ptr<char[]>> buffers;  // staging of ops completing on it
    bool in_use = false;
    bool retired = false;
    bool doorbell_used = false;
    int error = 0;  // MPI error code of the first failure
  };
  // One (origin bytes, target offset) piece of a transfer.
  struct Piece {
    char* addr;
    uint64_t offset;
    uint64_t bytes;
  };
  enum class OpKind : uint8_t { kWrite, kAtomic };

  TriggeredNic(Ofi& ofi, rma::st::TriggerMode mode, const TriggeredBudget& budget);
  int setup(fi_info* trigger_info);
  int ensure_counter(CounterId id);
  int endpoint_for(Counter& c);
  int open_endpoint(fid_ep** ep, fid_cntr* bind_cntr);
  uint64_t value_locked(const Counter& c) const;
  // The provider threshold for `threshold` on `c`, rotating `c` first when
  // needed; an MPI error when it cannot.
  int physical_threshold(CounterId id, uint64_t threshold, uint64_t* out);
  bool idle_locked(const Counter& c) const;
  void rotate_locked(Counter& c);
  int check_post(const char* what, CounterId trigger, CounterId completion) const;
  Slot* take_slot();
  int post_pieces(OpKind kind, const rma::Region& region, std::span<const Piece> pieces, fi_op op,
                  fi_datatype type, std::size_t element, CounterId trigger, uint64_t threshold,
                  CounterId completion);
  int post_group(OpKind kind, const rma::Region& region, std::span<const Piece> group, fi_op op,
                 fi_datatype type, std::size_t element, CounterId trigger, uint64_t physical,
                 CounterId completion, const uint64_t* operand);
  int submit(Slot& s, Counter& trigger, uint64_t physical, Counter& completion);
  int acquire_locked(CounterId* out);
  void recycle_locked(CounterId id);
  void collect_errors_locked();
  // Copies the origin of every staged piece whose threshold `value` reaches.
  void stage_locked(Counter& c, uint64_t value);
  // Runs the host operations whose trigger counters were reached; `wait`:
  // also those another thread is running now (ofi_triggered_host.cc).
  void fire_host_ops(bool wait);
  int run_host_op(HostOp& op);
  // Queues `op` on `trigger` (a unit of the budget, one completion owed).
  int queue_host_op_locked(HostOp op, CounterId trigger, uint64_t threshold, CounterId completion);
  uint64_t remote_address(const rma::Region& region, uint64_t offset) const;
  Slot* slot_of_context(void* context);

  Ofi& ofi_;
  rma::st::TriggerMode mode_;
  TriggeredBudget budget_;
  std::mutex mutex_;
  fi_info* info_ = nullptr;              // endpoint attributes for the pool's endpoints
  fid_cq* cq_ = nullptr;                 // errors of every pool endpoint
  fid_ep* deferred_ep_ = nullptr;        // deferred: every op is posted on it
  fid_cntr* deferred_errors_ = nullptr;  // deferred: its error count
  uint64_t deferred_errors_seen_ = 0;
  std::chrono::steady_clock::time_point deferred_unexplained_since_{};
  std::vector<Counter> counters_;
  std::vector<CounterId> free_counters_;
  int opened_counters_ = 0;
  // Slots in chunks of kChunk (stable addresses), allocated as needed: a
  // call with many pieces takes several.
  static constexpr std::size_t kChunk = 256;
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  std::vector<Slot*> free_slots_;
  uint64_t ops_in_use_ = 0;
  bool atomic_write64_ = false;  // FI_ATOMIC_WRITE on FI_UINT64 for signals
  std::size_t atomic_max_bytes_ = 0;
  std::string last_error_;  // the first failure's text (for every counter)
  HostAccumulate host_accumulate_ = nullptr;
  HostGet host_get_ = nullptr;
  std::atomic<bool> host_ops_pending_{false};
  std::recursive_mutex host_run_mutex_;           // held while host operations run
  std::atomic<uint64_t> host_ops_unfinished_{0};  // queued, not yet run to the end
  TriggeredStats stats_;
};

}  // namespace stmpi::dev::ofi
