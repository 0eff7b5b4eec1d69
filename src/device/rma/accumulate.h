// Element-wise atomic accumulates on memory this process addresses
// directly (a mapping of the target's memory, or its own memory when it is
// the target of an active message), shared by the transports:
//   - 8-byte integer elements of memory every origin maps (Region::
//     native_atomics) use CPU atomics: fetch-add/and/or/xor and exchange
//     where the CPU has them, a compare-and-swap loop for the other ops;
//   - everything else runs under the target's accumulate lock, a word in
//     the window's control segment.
// The choice depends only on the memory and the element type, never on the
// op or the count, so two origins touching one element always agree.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <span>

#include "device/rma/region.h"

namespace stmpi::dev::rma {

// Holds a target's accumulate lock for its lifetime. Critical sections are
// a copy or a reduction loop, so waiters spin and then give up the CPU.
class AccumulateLockGuard {
 public:
  explicit AccumulateLockGuard(std::atomic<uint64_t>* word) : word_(word) {
    if (word_ == nullptr) return;
    int spins = 0;
    for (;;) {
      uint64_t expected = 0;
      if (word_->load(std::memory_order_relaxed) == 0 &&
          word_->compare_exchange_weak(expected, 1, std::memory_order_acquire))
        return;
      if (++spins == 128) {
        spins = 0;
        sched_yield();
      }
    }
  }
  ~AccumulateLockGuard() {
    if (word_ != nullptr) word_->store(0, std::memory_order_release);
  }
  AccumulateLockGuard(const AccumulateLockGuard&) = delete;
  AccumulateLockGuard& operator=(const AccumulateLockGuard&) = delete;

 private:
  std::atomic<uint64_t>* word_;
};

// Whether elements of `acc.basic` at `address` take the CPU-atomic path.
bool uses_native_atomics(const Region& region, const AccumulateOp& acc);

// target = op(in, target) for the runs of memory at `base`; previous values
// to `out` when it is not null. Takes the accumulate lock `lock` unless the
// native path applies (`native`). Returns an MPI error code.
[[nodiscard]] int accumulate_local(char* base, bool native, std::atomic<uint64_t>* lock,
                                   std::span<const Run> runs, const AccumulateOp& acc,
                                   const void* in, void* out);

// One element at `address`: out = *address; if equal to `compare`, store
// `swap`. Native or under `lock`, as for accumulate_local.
[[nodiscard]] int compare_swap_local(char* address, bool native, std::atomic<uint64_t>* lock,
                                     const AccumulateOp& acc, const void* compare, const void* swap,
                                     void* out);

// Applies the op to packed elements in process-local memory (no locking):
// target = op(in, target) over `bytes` bytes of whole elements.
[[nodiscard]] int apply_packed(const AccumulateOp& acc, const void* in, void* target,
                               uint64_t bytes);

}  // namespace stmpi::dev::rma
