// Unexpected message queue: messages that arrived before a matching receive
// was posted. Each message is linked twice, into its hash bin and into one
// arrival-ordered list. A receive or probe with a full key searches only its
// bin (in arrival order, because a bin only ever gains entries at its tail);
// one with a wildcard walks the arrival list. Either way it finds the oldest
// matching message.
//
// The device embeds the entry by inheritance, as for PostedEntry:
//
//   struct UnexpectedMessage : stmpi::dev::match::UnexpectedEntry { ... };
//   auto* msg = static_cast<UnexpectedMessage*>(unexpected_queue.take(key));
//
// Nothing here allocates. Neither copyable nor movable, not thread safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "device/match/key.h"

namespace stmpi::dev::match {

struct UnexpectedBinTag;
struct UnexpectedArrivalTag;

struct UnexpectedEntry : ListHook<UnexpectedBinTag>, ListHook<UnexpectedArrivalTag> {
  Key key{};  // never holds a wildcard
};

class UnexpectedQueue {
 public:
  using BinList = IntrusiveList<UnexpectedEntry, UnexpectedBinTag>;
  using ArrivalList = IntrusiveList<UnexpectedEntry, UnexpectedArrivalTag>;

  UnexpectedQueue() = default;
  UnexpectedQueue(const UnexpectedQueue&) = delete;
  UnexpectedQueue& operator=(const UnexpectedQueue&) = delete;

  void push(UnexpectedEntry* entry) noexcept {
    bins_[bin_of(pack(entry->key))].push_back(entry);
    arrival_.push_back(entry);
    ++size_;
    if (size_ > max_size_) max_size_ = size_;
  }

  // Oldest queued message matching `pattern` (wildcards allowed), left in
  // the queue; nullptr if none. This is MPI_Iprobe's search.
  [[nodiscard]] UnexpectedEntry* find(const Key& pattern) const noexcept {
    uint64_t examined = 0;
    UnexpectedEntry* found = nullptr;
    if (is_wildcard(pattern)) {
      for (UnexpectedEntry* e = arrival_.first(); e; e = arrival_.next_of(e)) {
        ++examined;
        if (matches(pattern, e->key)) {
          found = e;
          break;
        }
      }
    } else {
      const BinList& bin = bins_[bin_of(pack(pattern))];
      for (UnexpectedEntry* e = bin.first(); e; e = bin.next_of(e)) {
        ++examined;
        if (e->key == pattern) {
          found = e;
          break;
        }
      }
    }
    ++stats_.searches;
    stats_.examined += examined;
    return found;
  }

  // Oldest queued message with exactly `key` for which pred(entry) holds
  // (a sender cancelling one particular message); nullptr if none.
  template <class Pred>
  [[nodiscard]] UnexpectedEntry* find_exact_if(const Key& key, Pred&& pred) const {
    const BinList& bin = bins_[bin_of(pack(key))];
    for (UnexpectedEntry* e = bin.first(); e; e = bin.next_of(e))
      if (e->key == key && pred(e)) return e;
    return nullptr;
  }

  // `entry` must be queued here.
  void remove(UnexpectedEntry* entry) noexcept {
    BinList::unlink(entry);
    ArrivalList::unlink(entry);
    --size_;
  }

  // find() and remove(): a receive consuming its message.
  [[nodiscard]] UnexpectedEntry* take(const Key& pattern) noexcept {
    UnexpectedEntry* found = find(pattern);
    if (found) remove(found);
    return found;
  }

  [[nodiscard]] size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // The most entries the queue has held at once.
  [[nodiscard]] size_t max_size() const noexcept { return max_size_; }

  [[nodiscard]] const SearchStats& stats() const noexcept { return stats_; }
  void reset_stats() noexcept { stats_ = SearchStats{}; }

 private:
  std::array<BinList, kBins> bins_;
  ArrivalList arrival_;
  size_t size_ = 0;
  size_t max_size_ = 0;
  mutable SearchStats stats_;  // counted by const searches too
};

}  // namespace stmpi::dev::match
