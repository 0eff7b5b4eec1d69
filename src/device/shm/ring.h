// A single-producer single-consumer ring of fixed-size cells in shared
// memory: one per ordered pair of local ranks. The producer owns `head`,
// the consumer owns `tail`; each caches the other's index so the common
// case touches only its own cache line plus the cell.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stmpi::dev::shm {

struct alignas(64) RingControl {
  std::atomic<uint64_t> head{0};  // next cell the producer writes
  char pad0[64 - sizeof(std::atomic<uint64_t>)];
  std::atomic<uint64_t> tail{0};  // next cell the consumer reads
  char pad1[64 - sizeof(std::atomic<uint64_t>)];
};

// A process-local view of one ring; `cells` points into the segment.
class RingView {
 public:
  RingView() = default;
  RingView(RingControl* control, char* cells, uint32_t cell_count, uint32_t cell_size)
      : control_(control), cells_(cells), mask_(cell_count - 1), cell_size_(cell_size) {}

  // Producer: a free cell or nullptr when the ring is full.
  char* producer_cell() {
    const uint64_t head = control_->head.load(std::memory_order_relaxed);
    if (head - cached_tail_ > mask_) {
      cached_tail_ = control_->tail.load(std::memory_order_acquire);
      if (head - cached_tail_ > mask_) return nullptr;
    }
    return cells_ + (head & mask_) * cell_size_;
  }
  void producer_publish() {
    control_->head.store(control_->head.load(std::memory_order_relaxed) + 1,
                         std::memory_order_release);
  }

  // Consumer: the oldest filled cell or nullptr when the ring is empty.
  char* consumer_cell() {
    const uint64_t tail = control_->tail.load(std::memory_order_relaxed);
    if (tail == cached_head_) {
      cached_head_ = control_->head.load(std::memory_order_acquire);
      if (tail == cached_head_) return nullptr;
    }
    return cells_ + (tail & mask_) * cell_size_;
  }
  void consumer_release() {
    control_->tail.store(control_->tail.load(std::memory_order_relaxed) + 1,
                         std::memory_order_release);
  }

  uint32_t cell_size() const { return cell_size_; }

 private:
  RingControl* control_ = nullptr;
  char* cells_ = nullptr;
  uint64_t mask_ = 0;
  uint32_t cell_size_ = 0;
  uint64_t cached_tail_ = 0;
  uint64_t cached_head_ = 0;
};

}  // namespace stmpi::dev::shm
