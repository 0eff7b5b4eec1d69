#include "device/rma/window_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <mpi.h>

#include "device/progress.h"
#include "util/error.h"

namespace stmpi::dev::rma {
namespace {

constexpr std::size_t kLine = 64;
constexpr std::size_t kPage = 4096;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

WindowLayout::WindowLayout(std::span<const uint64_t> data_bytes, bool contiguous, int attach_slots)
    : nranks_(static_cast<int>(data_bytes.size())), attach_slots_(attach_slots) {
  const std::size_t n = data_bytes.size();
  const std::size_t signals = round_up(8 * n, kLine);
  complete_base_ = 192 + signals;
  node_base_ = complete_base_ + signals;
  attach_base_ = node_base_ + kQueueNodeBytes * n;
  stream_post_base_ =
      round_up(attach_base_ + sizeof(AttachedRegion) * std::size_t(attach_slots), kLine);
  stream_complete_base_ = stream_post_base_ + signals;
  fence_base_ = stream_complete_base_ + signals;
  block_bytes_ = round_up(fence_base_ + 8 * std::size_t(kFenceRounds), kLine);
  control_base_ = 2 * kLine;  // after the barrier words
  std::size_t at = round_up(control_base_ + block_bytes_ * n, kPage);
  data_offsets_.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (!contiguous) at = round_up(at, kPage);
    data_offsets_[r] = at;
    at += data_bytes[r];
  }
  total_ = round_up(at == 0 ? kPage : at, kPage);
}

void segment_barrier(char* base, int nranks) {
  auto arrived = segment_word(base, WindowLayout::kBarrierArrived);
  auto generation = segment_word(base, WindowLayout::kBarrierGeneration);
  const uint64_t mine = generation.load(std::memory_order_acquire);
  if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<uint64_t>(nranks)) {
    arrived.store(0, std::memory_order_relaxed);
    generation.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  wait_until([&] { return generation.load(std::memory_order_acquire) != mine; });
}

}  // namespace stmpi::dev::rma
