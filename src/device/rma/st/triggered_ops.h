// TriggeredOps: what a network module (or the library's software trigger
// engine, software_triggers.h) provides for stream-triggered epochs between
// nodes: counters, and data operations and 64-bit signal stores that fire
// when a counter reaches a threshold. The triggered-op executor
// (triggered_op_executor.h) uses nothing else, so one executor runs over
// libfabric's FI_TRIGGER, its deferred work queue (fi_control
// FI_QUEUE_WORK) and the software engine alike.
//
// Contract for implementations:
//   - a counter from acquire_counter() reads 0 and has no operation posted
//     on it; release_counter() is called only once every operation posted
//     on or completing into it has fired and completed (or failed);
//   - post_* copy `runs` and `origin` (the spans need not outlive the call);
//     the origin bytes themselves are read when the operation fires;
//   - an operation whose threshold is already reached fires at once;
//   - operations fired by one counter run in post order; each one that
//     completes adds 1 to its completion counter, which may fire others;
//   - a failed operation adds nothing (its chain stops) and its error is
//     returned by first_error() of its completion counter, and of its
//     trigger counter, until the counter is released;
//   - counter values stay far below 2^31 (every counter serves one epoch
//     and is reset when acquired again), so 32-bit NIC counters are safe.
// Self-contained: only region and plan types.
#pragma once

#include <cstdint>
#include <span>

#include "device/rma/region.h"
#include "device/rma/st/epoch_plan.h"

namespace stmpi::dev::rma::st {

// How triggered operations are posted (STMPI_ST_TRIGGER):
enum class TriggerMode : uint8_t {
  kSoftware,  // the library's own engine: per-counter lists fired by add_counter
  kNative,    // FI_TRIGGER on the data call (struct fi_triggered_context)
  kDeferred,  // the deferred work queue (fi_control(FI_QUEUE_WORK))
};

inline const char* trigger_mode_name(TriggerMode mode) {
  switch (mode) {
    case TriggerMode::kSoftware: return "software";
    case TriggerMode::kNative: return "native (FI_TRIGGER)";
    case TriggerMode::kDeferred: return "deferred (FI_QUEUE_WORK)";
  }
  return "unknown";
}

class TriggeredOps {
 public:
  using CounterId = uint32_t;
  virtual ~TriggeredOps() = default;

  // Which path this object implements.
  virtual TriggerMode mode() const = 0;

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
  // A read of `runs` of `region` into `dest` (pack order), triggered the
  // same way; its completion adds 1 to `completion` once the data is in
  // `dest`. Every implementation runs reads on the host and completes them
  // before add_counter returns (the executor relies on it: an MPI_Get's data
  // is there, in stream order, after MPIX_Win_complete_stream).
  [[nodiscard]] virtual int post_read(const Region& region, std::span<const Run> runs,
                                      std::span<const OriginPiece> dest, CounterId trigger,
                                      uint64_t threshold, CounterId completion) = 0;
  // A 64-bit store of `value` at `offset` of `region` (a signal word).
  [[nodiscard]] virtual int post_signal(const Region& region, uint64_t offset, uint64_t value,
                                        CounterId trigger, uint64_t threshold,
                                        CounterId completion) = 0;

  // Where a stream stores to bump `id` (a NIC doorbell, e.g. cxi's MMIO
  // address), or null: then the executor enqueues a host function calling
  // add_counter.
  virtual uint64_t* doorbell(CounterId id) = 0;
  // Callable from any thread (a stream's host function): fires what the
  // new value releases.
  [[nodiscard]] virtual int add_counter(CounterId id, uint64_t value) = 0;
  virtual uint64_t read_counter(CounterId id) = 0;
  // Errors of fired operations (a failed triggered op breaks its chain):
  // MPI_SUCCESS or an MPI error code whose text names the provider's error.
  virtual int first_error(CounterId id) = 0;
};

}  // namespace stmpi::dev::rma::st
