// The passive lock protocol. Notation: W = the target's lock word, N(p) =
// process p's queue node for the target, "id" = rank + 1.
#include "device/rma/lock/passive_lock.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "device/progress.h"
#include "device/rma/lock/lock_word.h"
#include "device/rma/rma.h"

namespace stmpi::dev::rma::lock {

PassiveLocks::PassiveLocks(int my_rank, std::vector<Region> blocks,
                           std::vector<uint64_t> node_offsets, uint64_t lock_word_offset)
    : me_(my_rank),
      my_id_(static_cast<uint64_t>(my_rank) + 1),
      blocks_(std::move(blocks)),
      node_offsets_(std::move(node_offsets)),
      lock_word_(lock_word_offset),
      ops_in_flight_(blocks_.size(), 0) {}

uint64_t PassiveLocks::word_fetch_add(int target, uint64_t add) {
  ++ops_in_flight_[target];
  return fetch_add64(blocks_[target], lock_word_, add);
}

uint64_t PassiveLocks::word_cas(int target, uint64_t expected, uint64_t desired) {
  ++ops_in_flight_[target];
  return compare_swap64(blocks_[target], lock_word_, expected, desired);
}

uint64_t PassiveLocks::node_cas(int owner, int target, uint64_t field, uint64_t expected,
                                uint64_t desired) {
  ++ops_in_flight_[target];
  return compare_swap64(blocks_[owner], node_offsets_[target] + field, expected, desired);
}

uint64_t PassiveLocks::node_load(int owner, int target, uint64_t field) {
  ++ops_in_flight_[target];
  return load64(blocks_[owner], node_offsets_[target] + field);
}

void PassiveLocks::node_store(int owner, int target, uint64_t field, uint64_t value) {
  ++ops_in_flight_[target];
  store64(blocks_[owner], node_offsets_[target] + field, value);
}

uint64_t* PassiveLocks::my_field(int target, uint64_t field) const {
  return reinterpret_cast<uint64_t*>(blocks_[me_].mapped + node_offsets_[target] + field);
}

void PassiveLocks::wait_for_nonzero(int target, uint64_t field) {
  std::atomic_ref<uint64_t> word(*my_field(target, field));
  if (word.load(std::memory_order_acquire) != 0) return;
  if (field == kGrant) ++stats_.waited;
  wait_until([&] { return word.load(std::memory_order_acquire) != 0; });
}

void PassiveLocks::acquire(int target, LockType type) {
  ops_in_flight_[target] = 0;
  if (type == LockType::kExclusive) acquire_exclusive(target);
  else acquire_shared(target);
  ++stats_.acquisitions;
}

void PassiveLocks::release(int target, LockType type, Completion done) {
  if (type == LockType::kExclusive) release_exclusive(target, done);
  else shared_decrement(target);
  stats_.remote_ops += ops_in_flight_[target];
  stats_.max_remote_ops = std::max(stats_.max_remote_ops, ops_in_flight_[target]);
  ops_in_flight_[target] = 0;
}

// Exclusive: enqueue as tail with one CAS (a retry only when W changed in
// between). Free lock: granted. Behind an exclusive: link into its
// exclusive_next and wait for its grant. Behind shared holders only: also
// become head, so that the last of them grants.
void PassiveLocks::acquire_exclusive(int target) {
  std::atomic_ref<uint64_t>(*my_field(target, kGrant)).store(0, std::memory_order_relaxed);
  std::atomic_ref<uint64_t>(*my_field(target, kExclusiveNext)).store(0, std::memory_order_relaxed);
  // Reopen the list last: shared requesters may attach from now on.
  std::atomic_ref<uint64_t>(*my_field(target, kSignalTo)).store(0, std::memory_order_release);
  uint64_t seen = 0;  // guess: free
  for (;;) {
    uint64_t desired = with_tail(seen, my_id_);
    if (tail_of(seen) == 0 && shared_of(seen) != 0) desired = with_head(desired, my_id_);
    const uint64_t old = word_cas(target, seen, desired);
    if (old == seen) break;
    seen = old;
  }
  if (tail_of(seen) == 0 && shared_of(seen) == 0) return;
  if (tail_of(seen) != 0)
    node_store(static_cast<int>(tail_of(seen) - 1), target, kExclusiveNext, my_id_);
  wait_for_nonzero(target, kGrant);
}

// Shared: count in with one fetch-add. With no exclusive requester in the
// queue that is the grant. Otherwise attach to the exclusive tail's
// signal_to list, take the increment back, and wait: that exclusive wakes
// the list when it releases and counts it in then. If it released before
// the attach (list closed), try again: W has changed since.
void PassiveLocks::acquire_shared(int target) {
  std::atomic_ref<uint64_t> grant(*my_field(target, kGrant));
  for (;;) {
    grant.store(0, std::memory_order_release);
    const uint64_t old = word_fetch_add(target, kSharedOne);
    if (tail_of(old) == 0) return;
    const bool attached = push_follower(static_cast<int>(tail_of(old) - 1), target);
    shared_decrement(target);
    if (attached) {
      wait_for_nonzero(target, kGrant);
      if (grant.load(std::memory_order_acquire) == kGranted) return;
      // kRetry: the holder released without counting us in; start over.
      ++stats_.retried;
    }
  }
}

bool PassiveLocks::push_follower(int exclusive, int target) {
  std::atomic_ref<uint64_t> my_next(*my_field(target, kNextWaiter));
  uint64_t seen = 0;  // guess: open and empty
  for (;;) {
    if (seen & kListClosed) return false;
    my_next.store(list_first(seen), std::memory_order_release);
    const uint64_t old =
        node_cas(exclusive, target, kSignalTo, seen, make_list(list_count(seen) + 1, my_id_));
    if (old == seen) return true;
    seen = old;
  }
}

// Drops one from the shared count. Whoever moves the count to zero while a
// head waits must hand the head the lock; clearing the head with a CAS
// makes sure exactly one process does.
void PassiveLocks::shared_decrement(int target) {
  const uint64_t old = word_fetch_add(target, kSharedMinusOne);
  if (shared_of(old) == 1 && head_of(old) != 0) grant_head(target, old + kSharedMinusOne);
}

void PassiveLocks::grant_head(int target, uint64_t seen) {
  while (shared_of(seen) == 0 && head_of(seen) != 0) {
    const uint64_t old = word_cas(target, seen, with_head(seen, 0));
    if (old == seen) {
      node_store(static_cast<int>(head_of(seen) - 1), target, kGrant, kGranted);
      return;
    }
    seen = old;
  }
}

// Each follower's link is read before it is signalled: once signalled, a
// follower may go on and reuse its node.
void PassiveLocks::signal_followers(int target, uint64_t list, uint64_t signal) {
  uint64_t id = list_first(list);
  for (uint64_t n = list_count(list); n > 0 && id != 0; --n) {
    const int follower = static_cast<int>(id - 1);
    const uint64_t next = node_load(follower, target, kNextWaiter);
    node_store(follower, target, kGrant, signal);
    id = next;
  }
}

// Exclusive release. Every path's first remote operation is on W, except
// a handover to a successor already linked in, which first reads W when the
// holder's operations are only ordered (Completion::kOrdered).
//  - No successor (W's tail is us) and nobody on our list: one CAS clears
//    the tail, then we close the list. A shared requester that attached in
//    between (it read the tail just before the CAS) was not counted in, so
//    it is told to start over (kRetry); it goes behind whoever came next.
//  - No successor but followers: one CAS clears the tail and adds a token
//    to the shared count; then close the list. The token keeps the count
//    above zero until the followers are counted in, so that no exclusive
//    requester slips in between; the first follower inherits it.
//  - A successor x: close the list. Empty: hand x the lock. Otherwise the
//    followers go first: count them in and make x the head with one
//    fetch-add (the head is free while we hold the lock), then wake them;
//    the last of them to leave grants x.
void PassiveLocks::release_exclusive(int target, Completion done) {
  std::atomic_ref<uint64_t> next(*my_field(target, kExclusiveNext));
  std::atomic_ref<uint64_t> list(*my_field(target, kSignalTo));
  bool cas_done = false;  // an operation on W has returned
  if (next.load(std::memory_order_acquire) == 0) {
    cas_done = true;
    const bool followers = list.load(std::memory_order_acquire) != 0;
    uint64_t seen = with_tail(0, my_id_);  // guess: nobody else around
    while (tail_of(seen) == my_id_) {
      const uint64_t desired = with_tail(seen, 0) + (followers ? kSharedOne : 0);
      const uint64_t old = word_cas(target, seen, desired);
      if (old == seen) {
        const uint64_t closed = list.fetch_or(kListClosed, std::memory_order_acq_rel);
        if (followers) release_token(target, closed);
        else signal_followers(target, closed, kRetry);
        return;
      }
      seen = old;
    }
    wait_for_nonzero(target, kExclusiveNext);  // the successor is linking in
  }
  const uint64_t successor = next.load(std::memory_order_acquire);
  const uint64_t closed = list.fetch_or(kListClosed, std::memory_order_acq_rel);
  const uint64_t count = list_count(closed);
  if (count == 0) {
    // The successor may access the target at once: when the holder's
    // operations are only ordered, a read of W (behind them) confirms they
    // landed. On the paths above, a compare-and-swap on W already did.
    if (done == Completion::kOrdered && !cas_done) (void)word_fetch_add(target, 0);
    node_store(static_cast<int>(successor - 1), target, kGrant, kGranted);
    return;
  }
  word_fetch_add(target, count * kSharedOne + with_head(0, successor));
  signal_followers(target, closed, kGranted);
}

void PassiveLocks::release_token(int target, uint64_t list) {
  const uint64_t count = list_count(list);
  if (count == 0) {
    shared_decrement(target);
    return;
  }
  if (count > 1) word_fetch_add(target, (count - 1) * kSharedOne);
  signal_followers(target, list, kGranted);
}

}  // namespace stmpi::dev::rma::lock
