// AmRma: the active-message fallback for memory no other transport reaches
// (windows over private memory when single copy is not permitted). The
// origin ships each operation through the device rings; the target applies
// it when it progresses (any MPI call that waits, or polls), under its
// accumulate lock for accumulates, and answers with data or an
// acknowledgement. This path needs target progress: passive-target epochs
// over it are not truly passive. Puts and accumulates without a result are
// locally complete on return (the data is copied into the ring or a queued
// message); flush waits for the acknowledgements. Operations with a result
// raise done->pending and complete when the reply arrives.
#pragma once

#include <cstdint>
#include <span>

#include "device/rma/region.h"

namespace stmpi::dev::rma {

class AmRma final {
 public:
  static int put(const Region& region, std::span<const Run> runs, const void* in);
  static int get(const Region& region, std::span<const Run> runs, void* out, Completion* done);
  static int accumulate(const Region& region, std::span<const Run> runs, const AccumulateOp& acc,
                        const void* in, void* out, Completion* done);
  static int compare_swap(const Region& region, uint64_t offset, const AccumulateOp& acc,
                          const void* compare, const void* swap, void* out, Completion* done);
  // 64-bit atomics on an 8-byte aligned word at `offset`, applied by the
  // target with CPU atomics when it progresses; each waits for its answer.
  // The one fallback for regions without native remote atomics.
  static uint64_t fetch_add64(const Region& region, uint64_t offset, uint64_t add);
  static uint64_t compare_swap64(const Region& region, uint64_t offset, uint64_t expected,
                                 uint64_t desired);
  static uint64_t load64(const Region& region, uint64_t offset);
  static void store64(const Region& region, uint64_t offset, uint64_t value);
  // Waits until every operation sent to `target` (world rank; -1: all) has
  // been acknowledged.
  static int flush(int target);
};

// What the target side needs to apply an operation for a window: its
// accumulate lock, and whether its memory is node-shared (8-byte integer
// accumulates then use CPU atomics, as the node's other origins do:
// accumulate.h). Windows register under their id (the same on every process).
struct AmWindow {
  std::atomic<uint64_t>* acc_lock = nullptr;
  bool memory_native = false;
};
void am_register_window(uint64_t window_id, std::atomic<uint64_t>* acc_lock, bool memory_native);
void am_unregister_window(uint64_t window_id);

}  // namespace stmpi::dev::rma
