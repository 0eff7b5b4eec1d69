// Posted receive queue. Receives with a full key sit in one of kBins hash
// bins, receives with a wildcard in one wildcard list; all lists are in
// posting order. Every post takes the next sequence number, so an arriving
// message compares the first match of its bin with the first match of the
// wildcard list and takes the older: MPI's non-overtaking rule holds across
// the two kinds. The wildcard walk stops at the first entry newer than the
// bin's match, so wildcard receives posted later cost nothing.
//
// The device embeds the entry by inheritance and recovers its object with
// static_cast:
//
//   struct Request : stmpi::dev::match::PostedEntry { ... };
//   auto* request = static_cast<Request*>(posted_queue.match(key));
//
// Nothing here allocates. The queue is neither copyable nor movable (the
// entries point at its list heads) and not thread safe: one queue per
// matching context (VCI), under that context's lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "device/match/key.h"

namespace stmpi::dev::match {

struct PostedOrderTag;

struct PostedEntry : ListHook<PostedOrderTag> {
  Key key{};
  uint64_t seq = 0;  // set by PostedQueue::post
};

class PostedQueue {
 public:
  using List = IntrusiveList<PostedEntry, PostedOrderTag>;

  PostedQueue() = default;
  PostedQueue(const PostedQueue&) = delete;
  PostedQueue& operator=(const PostedQueue&) = delete;

  void post(PostedEntry* entry) noexcept {
    entry->seq = next_seq_++;
    list_for(entry->key).push_back(entry);
    ++size_;
    if (size_ > max_size_) max_size_ = size_;
  }

  // Removes and returns the oldest posted entry matching `msg`, or nullptr.
  // `msg` holds no wildcard.
  [[nodiscard]] PostedEntry* match(const Key& msg) noexcept {
    uint64_t examined = 0;
    PostedEntry* found = nullptr;
    List& bin = bins_[bin_of(pack(msg))];
    for (PostedEntry* e = bin.first(); e; e = bin.next_of(e)) {
      ++examined;
      if (e->key == msg) {
        found = e;
        break;
      }
    }
    for (PostedEntry* e = wildcard_.first(); e; e = wildcard_.next_of(e)) {
      if (found && e->seq > found->seq) break;
      ++examined;
      if (matches(e->key, msg)) {
        found = e;
        break;
      }
    }
    ++stats_.searches;
    stats_.examined += examined;
    if (found) {
      List::unlink(found);
      --size_;
    }
    return found;
  }

  // For cancel: unlinks `entry` if it is still queued here. False when it
  // was already matched (or never posted). `entry` must not be queued in
  // another PostedQueue.
  [[nodiscard]] bool remove(PostedEntry* entry) noexcept {
    if (!entry->is_linked()) return false;
    List::unlink(entry);
    --size_;
    return true;
  }

  [[nodiscard]] size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // The most entries the queue has held at once.
  [[nodiscard]] size_t max_size() const noexcept { return max_size_; }

  [[nodiscard]] const SearchStats& stats() const noexcept { return stats_; }
  void reset_stats() noexcept { stats_ = SearchStats{}; }

 private:
  List& list_for(const Key& key) noexcept {
    return is_wildcard(key) ? wildcard_ : bins_[bin_of(pack(key))];
  }

  std::array<List, kBins> bins_;
  List wildcard_;
  uint64_t next_seq_ = 0;
  size_t size_ = 0;
  size_t max_size_ = 0;
  SearchStats stats_;
};

}  // namespace stmpi::dev::match
