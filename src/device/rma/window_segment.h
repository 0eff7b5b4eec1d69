// The node segment of one window: a POSIX shared-memory object that every
// process of the window on this node maps. It holds
//   - a header (the fence barrier),
//   - one control block per rank: the passive-lock word, the accumulate
//     lock, the PSCW signal words, the rank's lock queue nodes (one per
//     target) and its table of attached regions (dynamic windows),
//   - and, for MPI_Win_allocate and MPI_Win_allocate_shared, every rank's
//     window memory.
// The segment is created zero-filled, which is the initial state of every
// word in it. Its name is /stmpi-<kvsname>-win<id>-<random>; the name is
// removed as soon as every process has mapped it, so nothing outlives the job.
//
// Control block of rank r (offsets in bytes, every part 64-byte aligned):
//   0                lock word of target r (lock/lock_word.h)
//   64               accumulate lock of target r
//   128              attached-region table header: version, count
//   192              post signals: post[t], incremented by t when it posts
//                    an exposure epoch that includes r (8 bytes per rank)
//   192 + 8n'        complete signals: complete[o], incremented by o at
//                    the end of its access epoch to r (n' = n rounded up to 8)
//   192 + 16n'       queue nodes: node[t] is r's node for target t (64 each)
//   ...              attached-region table entries (16 each)
//   ...              stream-triggered signals (device/rma/st), 64-byte aligned:
//                    stream_post[t], stored by t's stream: how many stream
//                    exposure epochs t has opened to r; then
//                    stream_complete[o], stored by o's stream: how many
//                    stream access epochs o has closed at r (8 bytes per rank)
//   ...              fence rounds: fence[k], incremented once per fence by the
//                    member 2^k ranks before r (windows spanning nodes: the
//                    dissemination barrier of Window::barrier), 8 bytes each
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/shm_segment.h"

namespace stmpi::dev::rma {

// The segment itself: created, named (randomly) and reserved by the one
// helper for every shared-memory segment of the job.
using SharedSegment = util::ShmSegment;

// One entry of a rank's attached-region table (MPI_Win_attach).
struct AttachedRegion {
  uint64_t base = 0;
  uint64_t bytes = 0;
};

// Offsets of everything in a window segment, computed identically by every
// process from the ranks' memory sizes.
class WindowLayout {
 public:
  WindowLayout() = default;
  // `data_bytes[r]`: window memory of rank r placed in the segment (0 for
  // windows over user memory, and for ranks on other nodes); `contiguous`: rank r+1's memory starts
  // right after rank r's (MPI_Win_allocate_shared), else each starts page-aligned.
  WindowLayout(std::span<const uint64_t> data_bytes, bool contiguous, int attach_slots);

  int nranks() const { return nranks_; }
  int attach_slots() const { return attach_slots_; }
  std::size_t total_bytes() const { return total_; }

  std::size_t control(int rank) const { return control_base_ + block_bytes_ * std::size_t(rank); }
  std::size_t data(int rank) const { return data_offsets_[rank]; }
  std::size_t block_bytes() const { return block_bytes_; }

  // Offsets inside a control block.
  static constexpr std::size_t kLockWord = 0;
  static constexpr std::size_t kAccumulateLock = 64;
  static constexpr std::size_t kAttachVersion = 128;
  static constexpr std::size_t kAttachCount = 136;
  static constexpr std::size_t kQueueNodeBytes = 64;
  std::size_t post_signal(int from) const { return 192 + 8 * std::size_t(from); }
  std::size_t complete_signal(int from) const { return complete_base_ + 8 * std::size_t(from); }
  std::size_t queue_node(int target) const {
    return node_base_ + kQueueNodeBytes * std::size_t(target);
  }
  std::size_t attach_entry(int slot) const {
    return attach_base_ + sizeof(AttachedRegion) * std::size_t(slot);
  }
  std::size_t stream_post_signal(int from) const {
    return stream_post_base_ + 8 * std::size_t(from);
  }
  std::size_t stream_complete_signal(int from) const {
    return stream_complete_base_ + 8 * std::size_t(from);
  }
  static constexpr int kFenceRounds = 32;  // enough for 2^32 members
  std::size_t fence_round(int k) const { return fence_base_ + 8 * std::size_t(k); }

  // Header words (at the start of the segment).
  static constexpr std::size_t kBarrierArrived = 0;
  static constexpr std::size_t kBarrierGeneration = 64;

 private:
  int nranks_ = 0;
  int attach_slots_ = 0;
  std::size_t complete_base_ = 0;
  std::size_t node_base_ = 0;
  std::size_t attach_base_ = 0;
  std::size_t stream_post_base_ = 0;
  std::size_t stream_complete_base_ = 0;
  std::size_t fence_base_ = 0;
  std::size_t block_bytes_ = 0;
  std::size_t control_base_ = 0;
  std::vector<std::size_t> data_offsets_;
  std::size_t total_ = 0;
};

// A word of a mapped segment, as an atomic.
inline std::atomic_ref<uint64_t> segment_word(char* base, std::size_t offset) {
  return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(base + offset));
}

// The window's barrier over the segment (sense-reversing: the last arrival
// resets the count and bumps the generation). Waiters progress the device.
void segment_barrier(char* base, int nranks);

}  // namespace stmpi::dev::rma
