// A single-producer single-consumer ring of fixed-size cells in shared
// memory: one per ordered pair of local ranks. Each cell carries a ready
// byte (at kReadyOffset, inside the message header): the producer sets it
// last, the consumer polls it and clears it. A small message therefore
// costs the receiver one cache line, the cell itself; the consumer's
// `tail` is read by the producer only when its cached copy says the ring
// is full.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stmpi::dev::shm {

// Byte offset of the ready flag in every cell.
inline constexpr std::size_t kReadyOffset = 1;

struct alignas(64) RingControl {
  std::atomic<uint64_t> head{0};  // next cell the producer writes (its own bookkeeping)
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
  // Marks the cell from producer_cell() filled; its header and payload
  // must be written before (the ready byte of the written header is 0).
  void producer_publish() {
    const uint64_t head = control_->head.load(std::memory_order_relaxed);
    ready_flag(cells_ + (head & mask_) * cell_size_).store(1, std::memory_order_release);
    control_->head.store(head + 1, std::memory_order_relaxed);
  }

  // Consumer: the oldest filled cell or nullptr when the ring is empty.
  char* consumer_cell() {
    char* cell = cells_ + (tail_ & mask_) * cell_size_;
    return ready_flag(cell).load(std::memory_order_acquire) != 0 ? cell : nullptr;
  }
  void consumer_release() {
    ready_flag(cells_ + (tail_ & mask_) * cell_size_).store(0, std::memory_order_relaxed);
    ++tail_;
    control_->tail.store(tail_, std::memory_order_release);
  }

  uint32_t cell_size() const { return cell_size_; }

 private:
  RingControl* control_ = nullptr;
  char* cells_ = nullptr;
  uint64_t mask_ = 0;
  uint32_t cell_size_ = 0;
  uint64_t cached_tail_ = 0;
  uint64_t tail_ = 0;  // consumer's copy of control_->tail

  static std::atomic_ref<uint8_t> ready_flag(char* cell) {
    return std::atomic_ref<uint8_t>(*reinterpret_cast<uint8_t*>(cell + kReadyOffset));
  }
};

}  // namespace stmpi::dev::shm
