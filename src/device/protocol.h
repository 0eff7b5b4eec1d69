// The device's wire protocol: the header at the start of every shared-memory
// cell. Transports move headers (plus payload); the protocol handlers in
// progress.cc give them meaning.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stmpi::dev {

enum class MsgKind : uint8_t {
  kEager,      // header + whole payload; the send completed when pushed
  kEagerSync,  // as kEager, but the receiver answers kSyncAck on match
  kRts,        // rendezvous: sender's address and size; receiver pulls
  kCts,        // receiver cannot pull (no CMA): sender streams kData
  kData,       // a chunk of a streamed rendezvous payload
  kFin,        // receiver finished pulling: sender's request completes
  kSyncAck,    // a synchronous eager message was matched
  kCancel,     // the sender cancels its unmatched message (sender_request)
  kCancelAck,  // answer: address = 1 if the message was removed unmatched
  kActiveMessage,  // opaque payload for a module above the device (RMA fallback)
};

struct WireHeader {
  MsgKind kind;
  uint8_t ready;           // the ring's ready flag (shm::kReadyOffset); 0 when written
  uint8_t pad[2];
  uint32_t payload_bytes;  // bytes following this header in the cell
  uint32_t context_id;
  int32_t source;          // sender's rank in the communicator
  int32_t tag;
  int32_t sender;          // sender's world rank
  uint64_t total_bytes;    // whole message size
  uint64_t sender_request;
  uint64_t receiver_request;
  uint64_t address;        // kRts: sender buffer; kData: offset of the chunk
};
static_assert(sizeof(WireHeader) == 56);
static_assert(offsetof(WireHeader, ready) == 1);

}  // namespace stmpi::dev
