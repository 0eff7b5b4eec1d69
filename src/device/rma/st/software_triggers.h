// SoftwareTriggers: the library's own trigger engine, the TriggeredOps of
// providers without triggered operations (tcp;ofi_rxm) and of
// STMPI_ST_TRIGGER=software. Counters are 64-bit words in this process;
// posted operations wait in per-counter lists, in post order. add_counter()
// (a host function on the stream, or any thread) fires every operation
// whose threshold the counter reached, through the device's ordinary RMA
// (device/rma/rma.h: NetRma for kNet regions, memcpy and CPU atomics for
// mapped ones), accumulates element-wise atomic exactly as MPI_Accumulate
// on the same region. A round of fired operations is flushed before their
// completion counters move, so a chained signal is stored only after the
// data it announces is complete at the target; every fired operation is
// complete when add_counter returns, so no progress hook is needed. Signals
// to other nodes are non-blocking 64-bit atomic writes completed by the
// round's flush (one round trip per round, not one per signal); a round of
// signals only is not flushed at all (nothing is ordered behind a signal but
// its counter): the next flush, a later round's or read_counter's, counts
// them, so the stream does not wait a round trip for exposure and
// completion signals.
//
// Budgets: `counters` counters (STMPI_ST_COUNTERS); triggered-op slots are
// accounted by the executor (STMPI_ST_TRIGGERED_OPS), the same for every
// TriggeredOps.
//
// The counter pool never waits for a firing round: release_counter() marks
// the counter free of its epoch and queues it as retired (pool_mutex_, held
// for a push); a retired counter returns to the free list under mutex_,
// between rounds (at the end of add_counter, or in acquire_counter when
// nothing else is free), so no round still firing operations of the old
// epoch can touch it once it serves a new one. acquire_counter() takes the
// engine mutex only on that slow path.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "device/rma/st/triggered_ops.h"

namespace stmpi::dev::rma::st {

struct SoftwareTriggerStats {
  uint64_t posted = 0;
  uint64_t fired = 0;   // fired and completed
  uint64_t failed = 0;  // fired and failed (their chains stop)
  uint64_t counters_in_use = 0;
  uint64_t counters_max_in_use = 0;
};

class SoftwareTriggers final : public TriggeredOps {
 public:
  // `fault_inject` > 0: the fault_inject-th fired operation fails (tests).
  SoftwareTriggers(int counters, int fault_inject);
  ~SoftwareTriggers() override;

  TriggerMode mode() const override { return TriggerMode::kSoftware; }
  [[nodiscard]] int acquire_counter(CounterId* out, bool* available) override;
  void release_counter(CounterId id) override;
  [[nodiscard]] int post_write(const Region& region, std::span<const Run> runs,
                               std::span<const OriginPiece> origin, CounterId trigger,
                               uint64_t threshold, CounterId completion) override;
  [[nodiscard]] int post_accumulate(const Region& region, std::span<const Run> runs,
                                    std::span<const OriginPiece> origin, const AccumulateOp& acc,
                                    CounterId trigger, uint64_t threshold,
                                    CounterId completion) override;
  [[nodiscard]] int post_read(const Region& region, std::span<const Run> runs,
                              std::span<const OriginPiece> dest, CounterId trigger,
                              uint64_t threshold, CounterId completion) override;
  [[nodiscard]] int post_signal(const Region& region, uint64_t offset, uint64_t value,
                                CounterId trigger, uint64_t threshold,
                                CounterId completion) override;
  uint64_t* doorbell(CounterId) override { return nullptr; }
  [[nodiscard]] int add_counter(CounterId id, uint64_t value) override;
  uint64_t read_counter(CounterId id) override;
  int first_error(CounterId id) override;

  SoftwareTriggerStats stats();

 private:
  enum class Kind : uint8_t { kWrite, kAccumulate, kRead, kSignal };
  struct Op {
    Kind kind = Kind::kWrite;
    Region region;
    std::vector<Run> runs;
    std::vector<OriginPiece> origin;  // kRead: where the data goes
    AccumulateOp acc;
    uint64_t offset = 0;   // kSignal
    uint64_t value = 0;    // kSignal
    bool one_way = false;  // kSignal: an ordered add, complete when issued
    uint64_t threshold = 0;
    CounterId completion = 0;
    std::vector<char> packed;  // a noncontiguous origin (or read destination), packed
  };
  struct Counter {
    std::atomic<uint64_t> value{0};
    std::atomic<int> error{0};
    std::atomic<bool> in_use{false};
    std::vector<std::unique_ptr<Op>> waiting;  // post order
  };

  [[nodiscard]] int post(std::unique_ptr<Op> op, CounterId trigger);
  [[nodiscard]] int check_id(CounterId id, const char* what) const;
  // Pops a free counter (pool_mutex_); false when none is free.
  bool pop_free(CounterId* out);
  // Returns the retired counters to the free list, their lists cleared
  // (mutex_ held: no round is firing).
  void recycle_retired();
  // Fires what `id` released and what their completions release in turn.
  void fire_from(CounterId id);
  // Fires what the counters in work_ released, round after round.
  void run_work();
  // One operation completed: its completion counter moves (work_).
  void completed(const Op& op);
  // NetRma::flush of everything issued.
  [[nodiscard]] int flush_network();
  // Makes what is issued next land after everything issued so far:
  // NetRma::order_after(-1), a fence (*fenced) or a flush.
  [[nodiscard]] int order_network(bool* fenced);
  // Counts the deferred signals a flush just completed (or fails them).
  void count_unflushed(int flush_err);
  // Flushes and counts the deferred signals, and fires what they release.
  void flush_unflushed();
  // Moves the operations posted meanwhile into their counters' lists
  // (mutex_ held).
  void take_incoming();
  // One operation; its error, or MPI_SUCCESS.
  int issue(Op& op, bool* network);
  void fail(const Op& op, CounterId trigger, int err);

  std::mutex mutex_;  // the lists; firing runs under it
  // The pool: free counters, and released ones not yet recycled. Taken
  // after mutex_ when both are held, never the other way round.
  std::mutex pool_mutex_;
  std::vector<CounterId> free_;     // popped from the back
  std::vector<CounterId> retired_;  // released, lists not yet cleared
  std::atomic<bool> has_retired_{false};
  std::atomic<uint64_t> counters_in_use_{0};
  std::atomic<uint64_t> counters_max_in_use_{0};
  // Posts do not wait for a firing round (which issues blocking network
  // operations under mutex_): they queue here, and the next round, or the
  // poster itself when its threshold is already reached, takes them over.
  std::mutex incoming_mutex_;
  std::vector<std::pair<CounterId, std::unique_ptr<Op>>> incoming_;
  std::atomic<bool> has_incoming_{false};
  std::atomic<uint64_t> posted_{0};
  std::unique_ptr<Counter[]> counters_;
  int count_;
  int fault_inject_;
  uint64_t fired_seq_ = 0;  // operations fired so far (fault injection)
  SoftwareTriggerStats stats_;
  // Scratch of one firing round.
  std::vector<std::unique_ptr<Op>> ready_;
  std::vector<CounterId> ready_trigger_;
  std::vector<CounterId> work_;
  // A signal word on another node: its owner, window and offset. Each has
  // one writer (this process) and only grows; the last value written.
  using SignalWord = std::tuple<int, uint64_t, uint64_t>;
  std::map<SignalWord, uint64_t> signal_last_;
  std::vector<int> errors_;  // of the round's operations
  // Signals of rounds that were not flushed (signals only): alive until a
  // flush completes them (the NIC reads their value until then).
  std::vector<std::unique_ptr<Op>> unflushed_;
  std::vector<CounterId> unflushed_trigger_;
  std::atomic<bool> has_unflushed_{false};
  // A round's network operations were fenced (order_network), not flushed:
  // they complete at the next flush.
  bool fenced_ = false;
};

}  // namespace stmpi::dev::rma::st
