#include "stream/host_op_queue.h"

#include <sched.h>

#include <new>

#include "stream/host_wait.h"

namespace stmpi::stream {

void HostOp::release() {
  switch (kind) {
    case HostOpKind::kSignal:
      if (entries_on_heap<SignalWrite>()) delete[] static_cast<SignalWrite*>(payload.heap);
      break;
    case HostOpKind::kWait:
      if (entries_on_heap<SignalWait>()) delete[] static_cast<SignalWait*>(payload.heap);
      break;
    case HostOpKind::kCopy:
      if (entries_on_heap<CopyRange>()) delete[] static_cast<CopyRange*>(payload.heap);
      break;
    case HostOpKind::kUser:
    case HostOpKind::kEpoch:  // the caller's arrays
    case HostOpKind::kProgram:
    case HostOpKind::kFence: break;
  }
  count = 0;
}

HostOpQueue::~HostOpQueue() {
  // Operations never executed: the executor drains the queue before it
  // stops, so only a queue that never had a consumer gets here with any.
  while (has_work()) {
    front();
    pop();
  }
  Segment* segment = head_ != nullptr ? head_ : first_.load(std::memory_order_acquire);
  while (segment != nullptr) {
    Segment* next = segment->next.load(std::memory_order_acquire);
    delete segment;
    segment = next;
  }
  for (Segment* spare = spare_.load(); spare != nullptr;) {
    Segment* next = spare->next.load(std::memory_order_relaxed);
    delete spare;
    spare = next;
  }
}

HostOpQueue::Segment* HostOpQueue::take_segment() {
  Segment* segment = spare_.load(std::memory_order_acquire);
  while (segment != nullptr &&
         !spare_.compare_exchange_weak(segment, segment->next.load(std::memory_order_relaxed),
                                       std::memory_order_acquire)) {
  }
  if (segment == nullptr) return new (std::nothrow) Segment;
  spare_count_.fetch_sub(1, std::memory_order_relaxed);
  segment->next.store(nullptr, std::memory_order_relaxed);
  return segment;
}

void HostOpQueue::lock_producers() {
  while (producer_busy_.exchange(true, std::memory_order_acquire)) {
    for (int polls = 1; producer_busy_.load(std::memory_order_relaxed); ++polls) {
      if (polls % 64 == 0) sched_yield();
      else cpu_relax();
    }
  }
}

bool HostOpQueue::push(const HostOp& op) {
  const ProducerLock lock(*this);
  if (tail_ == nullptr) {
    tail_ = take_segment();
    if (tail_ == nullptr) return false;
    first_.store(tail_, std::memory_order_release);
  }
  if (tail_index_ == kSegmentOps) {
    // Link the next segment before publishing anything in it.
    Segment* next = take_segment();
    if (next == nullptr) return false;
    tail_->next.store(next, std::memory_order_release);
    tail_ = next;
    tail_index_ = 0;
  }
  tail_->ops[tail_index_++] = op;
  published_.store(published_.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
  return true;
}

void HostOpQueue::next_segment() {
  if (head_ == nullptr) {
    head_ = first_.load(std::memory_order_acquire);
    return;
  }
  // A published slot lies beyond this segment, and the producer linked the
  // next segment before publishing it. Nobody refers to the finished one
  // any more: it becomes a spare.
  Segment* done = head_;
  head_ = done->next.load(std::memory_order_acquire);
  head_index_ = 0;
  if (spare_count_.load(std::memory_order_relaxed) >= kMaxSpareSegments) {
    delete done;
    return;
  }
  spare_count_.fetch_add(1, std::memory_order_relaxed);
  Segment* top = spare_.load(std::memory_order_relaxed);
  do {
    done->next.store(top, std::memory_order_relaxed);
  } while (!spare_.compare_exchange_weak(top, done, std::memory_order_release,
                                         std::memory_order_relaxed));
}

}  // namespace stmpi::stream
