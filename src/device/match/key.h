// The match key of a point-to-point message (context id, source, tag), its
// 64-bit packed form for NICs that match in hardware, the hash that spreads
// keys over bins, and the intrusive doubly linked list both queues build on.
//
// Packed layout (bit 63 on the left):
//
//   63          48 47                  28 27                             0
//  +--------------+----------------------+--------------------------------+
//  |  context id  |        source        |              tag               |
//  |   16 bits    |       20 bits        |            28 bits             |
//  +--------------+----------------------+--------------------------------+
//
// So MPI_TAG_UB is 2^28 - 1 and a communicator holds up to 2^20 ranks. The
// context id takes 16 bits as in MPICH, whose context ids already carry the
// collective/point-to-point offset in their low bits.
//
// A receive pattern may hold kAnySource and/or kAnyTag. pack() writes zero
// in a wildcard field and ignore_mask() returns that field's bits, which is
// what tagged interfaces expect (libfabric fi_trecv tag + ignore, UCX tag +
// tag_mask = ~ignore): a message with packed bits `m` matches when
// (m | ignore) == (pack(pattern) | ignore).
//
// The software queues never rely on pack() being lossless: they compare the
// full Key, and pack() only chooses a bin. Keys outside the ranges above
// still match correctly in software; only a NIC needs them in range.
#pragma once

#include <cstdint>

namespace stmpi::dev::match {

// MPICH's values of MPI_ANY_SOURCE and MPI_ANY_TAG.
inline constexpr int32_t kAnySource = -2;
inline constexpr int32_t kAnyTag = -1;

inline constexpr unsigned kContextIdBits = 16;
inline constexpr unsigned kSourceBits = 20;
inline constexpr unsigned kTagBits = 28;
static_assert(kContextIdBits + kSourceBits + kTagBits == 64);

inline constexpr unsigned kTagShift = 0;
inline constexpr unsigned kSourceShift = kTagBits;
inline constexpr unsigned kContextIdShift = kTagBits + kSourceBits;

inline constexpr uint64_t kTagMask = (uint64_t{1} << kTagBits) - 1;
inline constexpr uint64_t kSourceMask = (uint64_t{1} << kSourceBits) - 1;
inline constexpr uint64_t kContextIdMask = (uint64_t{1} << kContextIdBits) - 1;

inline constexpr int32_t kTagUb = static_cast<int32_t>(kTagMask);  // MPI_TAG_UB
inline constexpr int32_t kMaxRanks = int32_t{1} << kSourceBits;
inline constexpr uint32_t kMaxContextId = static_cast<uint32_t>(kContextIdMask);

// Prime, as in UCX's software matcher.
inline constexpr uint32_t kBins = 1021;

struct Key {
  uint32_t context_id;
  int32_t source;
  int32_t tag;

  friend constexpr bool operator==(const Key&, const Key&) = default;
};

constexpr bool is_wildcard(const Key& key) noexcept {
  return key.source == kAnySource || key.tag == kAnyTag;
}

// `pattern` may contain wildcards; `msg` never does.
constexpr bool matches(const Key& pattern, const Key& msg) noexcept {
  return pattern.context_id == msg.context_id &&
         (pattern.source == msg.source || pattern.source == kAnySource) &&
         (pattern.tag == msg.tag || pattern.tag == kAnyTag);
}

constexpr uint64_t pack(const Key& key) noexcept {
  const uint64_t context_id = key.context_id & kContextIdMask;
  const uint64_t source =
      key.source == kAnySource ? 0 : static_cast<uint32_t>(key.source) & kSourceMask;
  const uint64_t tag = key.tag == kAnyTag ? 0 : static_cast<uint32_t>(key.tag) & kTagMask;
  return (context_id << kContextIdShift) | (source << kSourceShift) | (tag << kTagShift);
}

constexpr uint64_t ignore_mask(const Key& pattern) noexcept {
  uint64_t ignore = 0;
  if (pattern.source == kAnySource) ignore |= kSourceMask << kSourceShift;
  if (pattern.tag == kAnyTag) ignore |= kTagMask << kTagShift;
  return ignore;
}

// Inverse of pack() for the match bits a NIC reports with a completion.
constexpr Key unpack(uint64_t packed) noexcept {
  return Key{static_cast<uint32_t>((packed >> kContextIdShift) & kContextIdMask),
             static_cast<int32_t>((packed >> kSourceShift) & kSourceMask),
             static_cast<int32_t>((packed >> kTagShift) & kTagMask)};
}

constexpr uint32_t bin_of(uint64_t packed) noexcept {
  return (static_cast<uint32_t>(packed) ^ static_cast<uint32_t>(packed >> 32)) % kBins;
}

// Counters for benchmarks and tests: `examined` is the number of entries
// whose key was compared, summed over all searches.
struct SearchStats {
  uint64_t searches = 0;
  uint64_t examined = 0;
};

// Intrusive circular doubly linked list with a sentinel head. An element
// type T derives from ListHook<Tag> once per list it can sit in, so one
// object can be linked into several lists (distinct Tags) and unlinked from
// any of them in O(1) without knowing which list holds it.
template <class Tag>
class ListHook {
 public:
  ListHook() = default;
  // Copying an element must not copy its place in a list.
  ListHook(const ListHook&) noexcept {}
  ListHook& operator=(const ListHook&) noexcept { return *this; }

  [[nodiscard]] bool is_linked() const noexcept { return next_ != nullptr; }

 private:
  template <class, class>
  friend class IntrusiveList;

  ListHook* prev_ = nullptr;
  ListHook* next_ = nullptr;
};

template <class T, class Tag>
class IntrusiveList {
 public:
  using Hook = ListHook<Tag>;

  IntrusiveList() noexcept { head_.prev_ = head_.next_ = &head_; }
  // Elements point at the sentinel, so the list cannot move.
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;

  [[nodiscard]] bool empty() const noexcept { return head_.next_ == &head_; }

  void push_back(T* item) noexcept {
    Hook* hook = item;
    hook->prev_ = head_.prev_;
    hook->next_ = &head_;
    head_.prev_->next_ = hook;
    head_.prev_ = hook;
  }

  // `item` must be linked in some list of this Tag.
  static void unlink(T* item) noexcept {
    Hook* hook = item;
    hook->prev_->next_ = hook->next_;
    hook->next_->prev_ = hook->prev_;
    hook->prev_ = hook->next_ = nullptr;
  }

  // Walk: for (T* e = list.first(); e; e = list.next_of(e))
  [[nodiscard]] T* first() const noexcept { return to_item(head_.next_); }
  [[nodiscard]] T* next_of(T* item) const noexcept {
    return to_item(static_cast<Hook*>(item)->next_);
  }

 private:
  T* to_item(Hook* hook) const noexcept { return hook == &head_ ? nullptr : static_cast<T*>(hook); }

  Hook head_;
};

}  // namespace stmpi::dev::match
