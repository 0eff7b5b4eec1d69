// A single-producer single-consumer ring of fixed-size cells in shared
// memory: one per ordered pair of local ranks. Each cell starts with the
// ring's own ready flag (kFlagBytes, in front of the message): the producer
// sets it last, the consumer polls it and clears it. The message follows
// the flag (the shm transport fits its header into the rest of the cell's
// first cache line, see shm.h). The consumer's `tail` is read by the
// producer only when its cached copy says the ring is full.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stmpi::dev::shm {

// Bytes of the per-cell ready flag in front of the message (8 keep the wire
// header's 64-bit fields aligned).
inline constexpr std::size_t kFlagBytes = 8;

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

  // Producer: where to write the next message (after the cell's flag), or
  // nullptr when the ring is full.
  char* producer_cell() {
    const uint64_t head = control_->head.load(std::memory_order_relaxed);
    if (head - cached_tail_ > mask_) {
      cached_tail_ = control_->tail.load(std::memory_order_acquire);
      if (head - cached_tail_ > mask_) return nullptr;
    }
    return cells_ + (head & mask_) * cell_size_ + kFlagBytes;
  }
  // Marks the cell from producer_cell() filled; its message must be written.
  void producer_publish() {
    const uint64_t head = control_->head.load(std::memory_order_relaxed);
    ready_flag(cells_ + (head & mask_) * cell_size_).store(1, std::memory_order_release);
    control_->head.store(head + 1, std::memory_order_relaxed);
  }

  // Consumer: the oldest filled cell's message, or nullptr when empty.
  char* consumer_cell() {
    char* cell = cells_ + (tail_ & mask_) * cell_size_;
    return ready_flag(cell).load(std::memory_order_acquire) != 0 ? cell + kFlagBytes : nullptr;
  }
  void consumer_release() {
    ready_flag(cells_ + (tail_ & mask_) * cell_size_).store(0, std::memory_order_relaxed);
    ++tail_;
    control_->tail.store(tail_, std::memory_order_release);
  }

  // Bytes of a message (header + payload) one cell holds.
  uint32_t message_bytes() const { return cell_size_ - static_cast<uint32_t>(kFlagBytes); }

 private:
  RingControl* control_ = nullptr;
  char* cells_ = nullptr;
  uint64_t mask_ = 0;
  uint32_t cell_size_ = 0;
  uint64_t cached_tail_ = 0;
  uint64_t tail_ = 0;  // consumer's copy of control_->tail

  static std::atomic_ref<uint64_t> ready_flag(char* cell) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(cell));
  }
};

}  // namespace stmpi::dev::shm
