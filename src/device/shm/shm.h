// The shared-memory module: one node segment holding a ring per ordered
// pair of local ranks, plus single-copy pulls (Linux CMA) for large
// messages. A concrete final class, called directly by the device.
#pragma once

#include <sys/types.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device/protocol.h"
#include "device/shm/ring.h"

namespace stmpi::pmi {
class Client;
}

namespace stmpi::dev::shm {

static_assert(offsetof(WireHeader, ready) == kReadyOffset, "the ring's ready flag is in the header");

enum class PullResult { kDone, kUnsupported, kFailed };

class ShmMod final {
 public:
  // Creates (local rank 0) or attaches the node segment. All ranks of the
  // job must be on this node. Returns an MPI error code.
  [[nodiscard]] int init(int my_rank, int nranks, pmi::Client& pmi);
  void finalize();

  // Producer side: a cell to fill for `peer`, or nullptr when full.
  char* cell_for(int peer) { return out_[peer].producer_cell(); }
  void publish(int peer) { out_[peer].producer_publish(); }
  std::size_t cell_payload() const { return cell_size_ - sizeof(WireHeader); }

  // Consumer side: calls handle(const WireHeader&, const char* payload)
  // for up to `budget` arrived cells per peer; returns how many.
  template <class Handler>
  int poll(Handler&& handle, int budget = 8);

  // Single-copy read of `bytes` at `remote` in the peer's address space.
  PullResult pull(int peer, uint64_t remote, void* local, std::size_t bytes);
  bool single_copy_enabled() const { return single_copy_; }

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  int my_rank_ = 0;
  int nranks_ = 0;
  uint32_t cell_size_ = 0;
  bool single_copy_ = true;
  std::vector<RingView> out_;  // rings this rank writes, by peer
  std::vector<RingView> in_;   // rings this rank reads, by peer
  std::vector<pid_t> pids_;
  int next_poll_ = 0;
};

template <class Handler>
int ShmMod::poll(Handler&& handle, int budget) {
  int handled = 0;
  for (int i = 0; i < nranks_; ++i) {
    // Start at a rotating peer so no sender is starved.
    int peer = next_poll_ + i;
    if (peer >= nranks_) peer -= nranks_;
    RingView& ring = in_[peer];
    for (int n = 0; n < budget; ++n) {
      char* cell = ring.consumer_cell();
      if (cell == nullptr) break;
      const auto* header = reinterpret_cast<const WireHeader*>(cell);
      handle(*header, cell + sizeof(WireHeader));
      ring.consumer_release();
      ++handled;
    }
  }
  next_poll_ = next_poll_ + 1 == nranks_ ? 0 : next_poll_ + 1;
  return handled;
}

// What the device needs of a shared-memory module.
template <class T>
concept ShmModule = requires(T mod, int peer, uint64_t addr, void* buf, std::size_t n) {
  { mod.cell_for(peer) } -> std::same_as<char*>;
  { mod.publish(peer) };
  { mod.cell_payload() } -> std::same_as<std::size_t>;
  { mod.pull(peer, addr, buf, n) } -> std::same_as<PullResult>;
};
static_assert(ShmModule<ShmMod>);

}  // namespace stmpi::dev::shm
