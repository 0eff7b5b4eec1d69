// What a transport must provide to carry the device's protocol
// (protocol/protocol.h). A transport is a concrete `final` class; the device
// calls it directly (no virtual call per message), after a plain branch on
// the peer table (device.cc). The shm rings (shm/shm.h) are one; the
// transport of a network module is another, and netmod/netmod.h lists what
// such a module provides beyond this concept.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "device/protocol/wire.h"
#include "device/request_dev.h"

namespace stmpi::dev {

// The answer of a rendezvous pull.
enum class PullStatus : uint8_t {
  kDone,         // the payload is in `local`
  kPending,      // started; the transport calls protocol::pull_done(req, ok) from its poll
  kUnsupported,  // this transport cannot pull: the protocol streams kData chunks instead (CTS)
  kFailed,       // the pull failed: the receive completes with an error
};

namespace detail {
// The arrival handler shape poll() is checked with.
struct ArrivalProbe {
  void operator()(const WireHeader&, const char*) const {}
};
}  // namespace detail

// send: copies the header and `h.payload_bytes` bytes at `payload` out (true:
//   sent, the payload may be reused; false: no room now, nothing was sent,
//   retry later: the protocol keeps a per-peer backlog in order). Messages to
//   one peer arrive in the order sent.
// poll: calls handler(const WireHeader&, const char* payload) for each
//   arrival (payload valid only during the call); returns how many.
// max_payload: the largest payload one send carries (the eager limit).
// expose / unexpose: rendezvous, sender side: make `bytes` at `buf` readable
//   by `peer` and fill h->address and h->rkey (an MPI error code); undone
//   after the receiver's FIN.
// pull: rendezvous, receiver side: read the sender's exposed buffer named by
//   the RTS header into `local`.
template <class T>
concept Transport = requires(T t, const T& ct, int peer, const WireHeader& h, WireHeader* out,
                             const void* payload, void* local, std::size_t bytes, RequestDev* req) {
  { t.send(peer, h, payload) } -> std::same_as<bool>;
  { t.poll(detail::ArrivalProbe{}) } -> std::same_as<int>;
  { ct.max_payload() } -> std::same_as<std::size_t>;
  { t.expose(peer, payload, bytes, out) } -> std::same_as<int>;
  {t.unexpose(h)};
  { t.pull(peer, h, local, bytes, req) } -> std::same_as<PullStatus>;
};

namespace protocol {
// Called by a transport (from its poll) when a pull that answered kPending
// ends: the receive completes (failed unless `ok`) and the sender gets FIN.
void pull_done(RequestDev* req, bool ok);
}  // namespace protocol

}  // namespace stmpi::dev
