// MPI_Win_lock / MPI_Win_unlock for one window, from 64-bit remote
// atomics only (README.md in this folder has the protocol). The target
// never takes part: its lock word lives in the window's control segment and
// every step is a fetch-add, compare-and-swap or one-word put/get through
// the device RMA interface (rma.h), so the same code runs over a network
// transport with remote atomics. A waiter spins on its own queue node.
#pragma once

#include <cstdint>
#include <vector>

#include "device/rma/region.h"

namespace stmpi::dev::rma::lock {

enum class LockType : uint8_t { kShared, kExclusive };

// What release() may assume about the holder's operations on the target:
// complete (flushed), or only ordered before the release's operations on
// the target (a network fence): then release() touches no other process
// before one of its operations on the target has returned.
enum class Completion : uint8_t { kComplete, kOrdered };

// Counters for one window in this process.
struct LockStats {
  int64_t acquisitions = 0;
  // Operations on words this process does not own (every lock-word
  // operation, and puts/gets/atomics on other processes' queue nodes),
  // summed over the acquisitions (lock and matching unlock).
  int64_t remote_ops = 0;
  int64_t max_remote_ops = 0;  // most in one acquisition
  int64_t waited = 0;          // acquisitions that were not granted at once
  int64_t retried = 0;         // shared requests told to start over (kRetry)
};

class PassiveLocks {
 public:
  PassiveLocks() = default;
  // `blocks[r]` reaches rank r's control block (lock word, queue nodes);
  // `node_offset(t)` is the offset of a node for target t in a block.
  PassiveLocks(int my_rank, std::vector<Region> blocks, std::vector<uint64_t> node_offsets,
               uint64_t lock_word_offset);

  // Blocks until this process holds the lock on `target`.
  void acquire(int target, LockType type);
  void release(int target, LockType type, Completion done = Completion::kComplete);

  const LockStats& stats() const { return stats_; }

 private:
  void acquire_exclusive(int target);
  void acquire_shared(int target);
  void release_exclusive(int target, Completion done);
  void release_token(int target, uint64_t list);
  void shared_decrement(int target);
  void grant_head(int target, uint64_t word);
  bool push_follower(int exclusive, int target);
  void signal_followers(int target, uint64_t list, uint64_t signal);

  // Remote operations, counted.
  uint64_t word_fetch_add(int target, uint64_t add);
  uint64_t word_cas(int target, uint64_t expected, uint64_t desired);
  uint64_t node_cas(int owner, int target, uint64_t field, uint64_t expected, uint64_t desired);
  uint64_t node_load(int owner, int target, uint64_t field);
  void node_store(int owner, int target, uint64_t field, uint64_t value);
  // This process's own node for `target` (local memory, not counted).
  uint64_t* my_field(int target, uint64_t field) const;
  void wait_for_nonzero(int target, uint64_t field);

  int me_ = 0;
  uint64_t my_id_ = 1;  // rank + 1
  std::vector<Region> blocks_;
  std::vector<uint64_t> node_offsets_;
  uint64_t lock_word_ = 0;
  std::vector<int64_t> ops_in_flight_;  // per target: this acquisition's count so far
  LockStats stats_;
};

}  // namespace stmpi::dev::rma::lock
