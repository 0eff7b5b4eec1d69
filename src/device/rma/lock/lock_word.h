// The passive-target lock word and queue node (README.md in this folder
// describes the protocol).
//
// Lock word, one per target, 64 bits:
//
//    63  62                 42 41                 21 20                  0
//   +---+---------------------+---------------------+---------------------+
//   | 0 |   exclusive head    |   exclusive tail    |    shared count     |
//   +---+---------------------+---------------------+---------------------+
//
//   shared count    processes holding a shared lock, plus short-lived
//                   increments of shared requesters that are backing out
//                   and a release token (see README.md);
//   exclusive tail  rank + 1 of the last exclusive requester (0: none);
//   exclusive head  rank + 1 of the exclusive requester that waits for the
//                   current shared holders to leave (0: none).
// Rank fields hold rank + 1 in 21 bits, so ranks 0 .. 2^21 - 2 fit
// (kMaxRanks = 2,097,151 processes). The shared count never exceeds the
// number of processes plus one (each process counts once per target, plus
// one token), which also fits in 21 bits.
//
// Queue node, one per (process, target), in the process's own control
// block, so that a waiter spins only on memory it owns:
//   grant           kGranted, written by whoever hands this process the
//                   lock, or kRetry (shared requesters only): the exclusive
//                   holder they waited for released without counting them
//                   in, and they must start over;
//   exclusive_next  rank + 1 of the exclusive requester queued right behind
//                   (written by that requester);
//   signal_to       list of shared requesters that arrived while this
//                   process was the exclusive tail and that it must wake
//                   when it releases: closed bit | count | first rank + 1;
//   next_waiter     when this process is on such a list: the next one
//                   (its "wait-for" link).
#pragma once

#include <cstdint>

namespace stmpi::dev::rma::lock {

inline constexpr int kFieldBits = 21;
inline constexpr uint64_t kFieldMask = (uint64_t{1} << kFieldBits) - 1;
inline constexpr int kTailShift = kFieldBits;
inline constexpr int kHeadShift = 2 * kFieldBits;
inline constexpr int kMaxRanks = static_cast<int>(kFieldMask);  // ids 1 .. 2^21-1
inline constexpr uint64_t kSharedOne = 1;
inline constexpr uint64_t kSharedMinusOne = ~uint64_t{0};  // adds -1 modulo 2^64

constexpr uint64_t shared_of(uint64_t word) { return word & kFieldMask; }
constexpr uint64_t tail_of(uint64_t word) { return (word >> kTailShift) & kFieldMask; }
constexpr uint64_t head_of(uint64_t word) { return (word >> kHeadShift) & kFieldMask; }
constexpr uint64_t with_tail(uint64_t word, uint64_t id) {
  return (word & ~(kFieldMask << kTailShift)) | (id << kTailShift);
}
constexpr uint64_t with_head(uint64_t word, uint64_t id) {
  return (word & ~(kFieldMask << kHeadShift)) | (id << kHeadShift);
}

// Values of the grant field.
inline constexpr uint64_t kGranted = 1;
inline constexpr uint64_t kRetry = 2;

// Queue node fields (byte offsets inside the node).
inline constexpr uint64_t kGrant = 0;
inline constexpr uint64_t kExclusiveNext = 8;
inline constexpr uint64_t kSignalTo = 16;
inline constexpr uint64_t kNextWaiter = 24;

// The signal_to list word.
inline constexpr uint64_t kListClosed = uint64_t{1} << 63;
constexpr uint64_t list_first(uint64_t list) { return list & kFieldMask; }
constexpr uint64_t list_count(uint64_t list) { return (list >> kFieldBits) & kFieldMask; }
constexpr uint64_t make_list(uint64_t count, uint64_t first) {
  return (count << kFieldBits) | first;
}

static_assert(shared_of(with_head(with_tail(5, 7), 9)) == 5);
static_assert(tail_of(with_head(with_tail(5, 7), 9)) == 7);
static_assert(head_of(with_head(with_tail(5, 7), 9)) == 9);

}  // namespace stmpi::dev::rma::lock
