// The shared-memory transport: one node segment holding a ring per ordered
// pair of this node's ranks, plus single-copy pulls (Linux CMA) for
// rendezvous payloads. A concrete final class satisfying dev::Transport,
// called directly by the device for peers the peer table marks kShm.
// Peers are world ranks; only those of this node (init's `local`) are valid.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "device/protocol/wire.h"
#include "device/shm/ring.h"
#include "device/transport.h"

namespace stmpi::pmi {
class Client;
}

namespace stmpi::dev::shm {

// A cell: the ready flag (8 bytes), the wire header without its last field
// (`rkey`, always 0 here: expose() makes no key), then the payload. Flag and
// header fill exactly the cell's first cache line, so a header-only message
// (a rendezvous RTS, its FIN, acknowledgments) moves one line between the
// cores and a payload starts cache-line aligned. With the whole 64-byte
// header the prefix took 72 bytes and every message two lines.
inline constexpr std::size_t kCellHeaderBytes = offsetof(WireHeader, rkey);
static_assert(kCellHeaderBytes == 56 && sizeof(WireHeader) == 64);
static_assert(kFlagBytes + kCellHeaderBytes == 64);

class ShmTransport final {
 public:
  // Creates (the node's first rank) or attaches the segment of node
  // `node`, shared by the world ranks `local` (ascending, this rank among
  // them). Collective over the whole job (PMI barriers): every rank calls
  // it, even one alone on its node. Returns an MPI error code.
  [[nodiscard]] int init(int my_rank, int world_size, std::span<const int> local, int node,
                         pmi::Client& pmi);
  void finalize();

  // Copies the header and its payload into the peer's ring; false when full.
  bool send(int peer, const WireHeader& h, const void* payload) {
    char* cell = out_[peer].producer_cell();
    if (cell == nullptr) [[unlikely]] {
      ++ring_full_;
      return false;
    }
    std::memcpy(cell, &h, kCellHeaderBytes);  // h.rkey is 0 (expose)
    if (h.payload_bytes != 0) std::memcpy(cell + kCellHeaderBytes, payload, h.payload_bytes);
    out_[peer].producer_publish();
    return true;
  }
  // Calls handle(const WireHeader&, const char* payload) for up to `budget`
  // arrived cells per peer; returns how many.
  template <class Handler>
  int poll(Handler&& handle, int budget = 8);
  std::size_t max_payload() const { return max_payload_; }

  // Rendezvous: the peer reads the buffer at its own address (CMA).
  int expose(int /*peer*/, const void* buf, std::size_t /*bytes*/, WireHeader* h) {
    h->address = reinterpret_cast<uint64_t>(buf);
    h->rkey = 0;
    return 0;
  }
  void unexpose(const WireHeader& /*h*/) {}
  PullStatus pull(int peer, const WireHeader& rts, void* local, std::size_t bytes, RequestDev* req);

  bool single_copy_enabled() const { return single_copy_; }
  // Sends that found the ring to their peer full (each attempt), so far.
  uint64_t ring_full_events() const { return ring_full_; }
  // The process id of a local peer (for single-copy RMA).
  pid_t pid_of(int peer) const { return pids_[peer]; }

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  int my_rank_ = 0;
  std::size_t max_payload_ = 0;
  bool single_copy_ = true;
  std::vector<RingView> out_;    // rings this rank writes, by world rank (local peers only)
  std::vector<RingView> in_;     // rings this rank reads, by world rank (local peers only)
  std::vector<pid_t> pids_;      // by world rank (local peers only)
  std::vector<int> poll_peers_;  // local peers other than this rank
  std::size_t next_poll_ = 0;
  uint64_t ring_full_ = 0;
};
static_assert(Transport<ShmTransport>);

template <class Handler>
int ShmTransport::poll(Handler&& handle, int budget) {
  int handled = 0;
  const std::size_t count = poll_peers_.size();
  for (std::size_t i = 0; i < count; ++i) {
    // Start at a rotating peer so no sender is starved.
    std::size_t at = next_poll_ + i;
    if (at >= count) at -= count;
    RingView& ring = in_[poll_peers_[at]];
    for (int n = 0; n < budget; ++n) {
      char* cell = ring.consumer_cell();
      if (cell == nullptr) break;
      WireHeader header;  // the cell's 56 bytes (same cache line as the flag) + rkey 0
      std::memcpy(&header, cell, kCellHeaderBytes);
      header.rkey = 0;
      handle(header, cell + kCellHeaderBytes);
      ring.consumer_release();
      ++handled;
    }
  }
  if (count != 0) next_poll_ = next_poll_ + 1 == count ? 0 : next_poll_ + 1;
  return handled;
}

}  // namespace stmpi::dev::shm
