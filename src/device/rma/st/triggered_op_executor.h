// TriggeredOpExecutor: the inter-node executor of epoch plans, over NIC
// triggered operations (README.md in this folder, "Between nodes", maps it
// onto libfabric). Declared here so that the plan and StreamWindow are
// shaped for it; it is implemented with the libfabric network module.
//
//   record    each put/accumulate is posted to the NIC at once as a triggered
//             write/atomic: trigger counter T (the epoch's), threshold 1,
//             completion counter C. Nothing moves yet.
//   post      per origin a triggered store of "exposure epoch k" into the
//             origin's signal word, threshold on a counter the stream bumps.
//   complete  on the stream: wait for every target's exposure word (a wait
//             kernel or stream wait); bump T (one store to T's doorbell, or a
//             host function calling add_counter) - this releases every
//             deferred write; the completion signals are triggered atomics
//             posted now with trigger counter C and threshold = number of
//             writes, so they fire only after every write completed.
//   wait      a wait on the local completion words, as inside a node.
// Counters and triggered-op slots are a bounded pool; ThrottlePolicy says
// what happens when an epoch needs more than is free.
#pragma once

#include <cstdint>
#include <span>

#include "device/rma/region.h"
#include "device/rma/st/epoch_plan.h"
#include "device/rma/st/executor.h"

namespace stmpi::dev::rma::st {

// What a network module provides for triggered operations: libfabric
// FI_TRIGGER or deferred work (fi_control FI_QUEUE_WORK) where the provider
// has them, else the library's software trigger engine behind the same calls.
class TriggeredOps {
 public:
  using CounterId = uint32_t;
  virtual ~TriggeredOps() = default;

  // A counter from the pool, or `*available` false when the pool is empty
  // (not an error: the executor throttles by its policy).
  [[nodiscard]] virtual int acquire_counter(CounterId* out, bool* available) = 0;
  virtual void release_counter(CounterId id) = 0;

  // A write of `origin` (pack order) to `runs` of `region`, fired when
  // counter `trigger` reaches `threshold`; its completion adds 1 to
  // `completion`. The origin is read when it fires.
  [[nodiscard]] virtual int post_write(const Region& region, std::span<const Run> runs,
                                       std::span<const OriginPiece> origin, CounterId trigger,
                                       uint64_t threshold, CounterId completion) = 0;
  // An element-wise atomic accumulate, triggered the same way.
  [[nodiscard]] virtual int post_accumulate(const Region& region, std::span<const Run> runs,
                                            std::span<const OriginPiece> origin,
                                            const AccumulateOp& acc, CounterId trigger,
                                            uint64_t threshold, CounterId completion) = 0;
  // A 64-bit store of `value` at `offset` of `region` (a signal word).
  [[nodiscard]] virtual int post_signal(const Region& region, uint64_t offset, uint64_t value,
                                        CounterId trigger, uint64_t threshold,
                                        CounterId completion) = 0;

  // Where a stream stores to bump `id` (a NIC doorbell, e.g. cxi's MMIO
  // address), or null: then the executor enqueues a host function calling
  // add_counter.
  virtual uint64_t* doorbell(CounterId id) = 0;
  [[nodiscard]] virtual int add_counter(CounterId id, uint64_t value) = 0;
  virtual uint64_t read_counter(CounterId id) = 0;
  // Errors of fired operations (a failed triggered op breaks its chain).
  virtual int first_error(CounterId id) = 0;
};

// Seed 001, section 5.2: who waits when counters or slots run out.
enum class ThrottlePolicy : uint8_t {
  kApplication,  // nobody: the application synchronizes its streams
  kStatic,       // before reusing resources, wait for every outstanding epoch
  kAdaptive,     // reclaim each counter as soon as its operations completed
};

class TriggeredOpExecutor final : public EpochExecutor {
 public:
  TriggeredOpExecutor(int rank, TriggeredOps& nic, ThrottlePolicy policy);
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

 private:
  int rank_;
  TriggeredOps& nic_;
  ThrottlePolicy policy_;
};

}  // namespace stmpi::dev::rma::st
