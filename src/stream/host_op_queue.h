// HostOpQueue: the queue between the CPU threads that enqueue on a host
// stream and the stream's executor thread. Operations are 64-byte slots in
// linked segments of kSegmentOps slots, so the queue never fills up (a full
// queue could deadlock: the stream may be waiting for a signal that the
// enqueuing thread writes only after it has enqueued more work).
//
// Producers copy a prepared slot in under a short spin lock (one exchange
// to take it, a plain release store to let go: cheaper than a mutex for a
// critical section of one 64-byte copy; a waiting producer yields after a
// few polls, so a holder that lost its CPU gets it back) and publish it by
// bumping `published_`; the single consumer reads slots without a lock.
// Finished segments are kept as spares (up to kMaxSpareSegments, a stack
// the consumer pushes on and producers pop from under their lock) for the
// next ones the producers need, so a stream that queues thousands of
// operations before it runs them allocates nothing from its second batch on.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "stream/stream.h"

namespace stmpi::stream {

enum class HostOpKind : uint8_t { kUser, kSignal, kWait, kCopy, kEpoch, kProgram, kFence };

// One operation. Up to 48 bytes of entries live in the slot; larger batches
// live in a heap array owned by the operation. An epoch step (kEpoch) refers
// to the caller's arrays (EpochStep: kept by the caller until it ran), a
// program (kProgram) to the caller's steps (StepProgram).
struct alignas(64) HostOp {
  static constexpr std::size_t kInlineBytes = 48;

  struct UserCall {
    HostFn fn;
    void* arg;
  };
  // kEpoch: the arrays of an EpochStep (cmp in HostOp::cmp).
  struct EpochRefs {
    const SignalWait* waits;
    const CopyRange* copies;
    const SignalWrite* writes;
    uint32_t wait_count;
    uint32_t copy_count;
    uint32_t write_count;
  };
  // kProgram: a StepProgram; `next` is the first step not run yet (a wait
  // that gave up leaves the operation at the front, resumed there).
  struct ProgramRefs {
    const EpochStep* steps;
    uint64_t bias;
    SignalWrite last;
    uint32_t count;
    uint32_t next;
  };
  union Payload {
    UserCall user;
    EpochRefs epoch;
    ProgramRefs program;
    SignalWrite writes[kInlineBytes / sizeof(SignalWrite)];
    SignalWait waits[kInlineBytes / sizeof(SignalWait)];
    CopyRange copies[kInlineBytes / sizeof(CopyRange)];
    std::atomic<uint32_t>* fence;  // 0 pending, 1 done, 2 a thread sleeps on it
    void* heap;                    // count entries, when they do not fit inline
  };

  HostOpKind kind = HostOpKind::kUser;
  Cmp cmp = Cmp::kGreaterEqual;
  uint32_t count = 0;
  Payload payload{};

  template <class Entry>
  static constexpr std::size_t inline_capacity() {
    return kInlineBytes / sizeof(Entry);
  }
  template <class Entry>
  bool entries_on_heap() const {
    return count > inline_capacity<Entry>();
  }
  template <class Entry>
  std::span<const Entry> entries() const;

  // Stores `entries` (inline or in a new heap array); false when out of memory.
  template <class Entry>
  [[nodiscard]] bool set_entries(std::span<const Entry> entries);
  // Frees the heap array of a signal, wait or copy operation.
  void release();
};

static_assert(sizeof(HostOp) == 64);
static_assert(std::is_trivially_copyable_v<HostOp::Payload>);

class HostOpQueue {
 public:
  HostOpQueue() = default;
  ~HostOpQueue();
  HostOpQueue(const HostOpQueue&) = delete;
  HostOpQueue& operator=(const HostOpQueue&) = delete;

  // Producer side, any thread. On failure (out of memory) nothing is
  // published and `op` still owns its entries.
  [[nodiscard]] bool push(const HostOp& op);
  uint64_t published() const { return published_.load(std::memory_order_seq_cst); }

  // Consumer side, the executor thread only. front() and pop() need
  // has_work() to have returned true.
  bool has_work() {
    if (popped_ != seen_published_) return true;
    seen_published_ = published_.load(std::memory_order_seq_cst);
    return popped_ != seen_published_;
  }
  HostOp& front() {
    if (head_index_ == kSegmentOps || head_ == nullptr) [[unlikely]]
      next_segment();
    return head_->ops[head_index_];
  }
  void pop() {
    head_->ops[head_index_++].release();
    ++popped_;
  }
  uint64_t popped() const { return popped_; }

 private:
  static constexpr uint32_t kSegmentOps = 255;
  static constexpr uint32_t kMaxSpareSegments = 64;  // 1 MiB
  struct Segment {
    HostOp ops[kSegmentOps];
    std::atomic<Segment*> next{nullptr};
  };

  Segment* take_segment();
  void next_segment();
  void lock_producers();
  void unlock_producers() { producer_busy_.store(false, std::memory_order_release); }
  struct ProducerLock {
    explicit ProducerLock(HostOpQueue& queue) : q(queue) { q.lock_producers(); }
    ~ProducerLock() { q.unlock_producers(); }
    ProducerLock(const ProducerLock&) = delete;
    ProducerLock& operator=(const ProducerLock&) = delete;
    HostOpQueue& q;
  };

  // Producer and consumer state on separate cache lines.
  alignas(64) std::atomic<bool> producer_busy_{false};
  Segment* tail_ = nullptr;  // under producer_busy_
  uint32_t tail_index_ = 0;

  alignas(64) std::atomic<uint64_t> published_{0};

  alignas(64) Segment* head_ = nullptr;  // consumer only (set by the first push)
  uint32_t head_index_ = 0;
  uint64_t popped_ = 0;
  uint64_t seen_published_ = 0;  // the last published_ the consumer read

  // Spare segments, linked through `next`: one popper at a time (producers,
  // under their lock), so the stack has no ABA problem.
  alignas(64) std::atomic<Segment*> spare_{nullptr};
  std::atomic<uint32_t> spare_count_{0};
  std::atomic<Segment*> first_{nullptr};  // hands the first segment to the consumer
};

template <class Entry>
std::span<const Entry> HostOp::entries() const {
  const Entry* base;
  if (entries_on_heap<Entry>()) {
    base = static_cast<const Entry*>(payload.heap);
  } else if constexpr (std::is_same_v<Entry, SignalWrite>) {
    base = payload.writes;
  } else if constexpr (std::is_same_v<Entry, SignalWait>) {
    base = payload.waits;
  } else {
    static_assert(std::is_same_v<Entry, CopyRange>);
    base = payload.copies;
  }
  return {base, count};
}

template <class Entry>
bool HostOp::set_entries(std::span<const Entry> entries) {
  count = static_cast<uint32_t>(entries.size());
  Entry* target;
  if (entries_on_heap<Entry>()) {
    target = new (std::nothrow) Entry[entries.size()];
    if (target == nullptr) return false;
    payload.heap = target;
  } else if constexpr (std::is_same_v<Entry, SignalWrite>) {
    target = payload.writes;
  } else if constexpr (std::is_same_v<Entry, SignalWait>) {
    target = payload.waits;
  } else {
    static_assert(std::is_same_v<Entry, CopyRange>);
    target = payload.copies;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) target[i] = entries[i];
  return true;
}

}  // namespace stmpi::stream
