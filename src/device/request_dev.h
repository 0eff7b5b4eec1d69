// The device's part of a request: matching entry, protocol state and the
// completion flag. Embedded in stmpi::mpi::Request.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "device/match/posted_queue.h"

namespace stmpi::dev {

enum class SendMode : uint8_t { kStandard, kSync, kReady, kBuffered };

struct RequestDev : match::PostedEntry {
  std::atomic<bool> done{false};
  // Receive side: where the data goes and how much fits.
  void* recv_buf = nullptr;
  std::size_t recv_capacity = 0;
  std::size_t received = 0;  // bytes delivered so far (pipelined data)
  std::size_t expected = 0;  // bytes the sender will deliver (<= capacity)
  // Send side.
  const void* send_buf = nullptr;
  std::size_t send_bytes = 0;
  std::size_t sent = 0;  // streamed bytes pushed so far
  int peer = -1;         // world rank of the peer
  SendMode mode = SendMode::kStandard;
  bool posted = false;        // sitting in the posted-receive queue
  uint64_t peer_request = 0;  // the other side's request id (streamed rendezvous; a
                              // receive's sender request while it pulls)
  uint64_t rkey = 0;          // rendezvous send: the transport's key of the exposed buffer
  bool exposed = false;       // rendezvous send: the buffer is exposed until FIN/CTS/cancel
  // Filled when a receive matches: what MPI_Status reports.
  int32_t msg_source = 0;
  int32_t msg_tag = 0;
  std::size_t msg_bytes = 0;  // bytes delivered (<= capacity)
  std::size_t msg_total = 0;  // bytes the sender sent
  bool truncated = false;     // the message was longer than the buffer
  bool failed = false;        // a single-copy pull failed
  // Send cancellation: while the receiver has not answered, completion of
  // the transfer is only noted, so the request cannot be reused under it.
  bool cancel_pending = false;
  bool transfer_done = false;
  bool cancelled = false;
};

}  // namespace stmpi::dev
