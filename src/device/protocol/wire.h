// The device's wire protocol: the header in front of every message any
// transport carries (the shm rings put it in a cell after their own ready
// flag; a network module sends it as the first bytes of a message). The
// protocol (protocol/protocol.h) gives the kinds their meaning.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stmpi::dev {

enum class MsgKind : uint8_t {
  kEager,          // header + whole payload; the send completed when pushed
  kEagerSync,      // as kEager, but the receiver answers kSyncAck on match
  kRts,            // rendezvous: sender's exposed buffer (address, rkey) and size; receiver pulls
  kCts,            // receiver cannot pull: sender streams kData
  kData,           // a chunk of a streamed rendezvous payload
  kFin,            // receiver finished pulling: sender's request completes
  kSyncAck,        // a synchronous eager message was matched
  kCancel,         // the sender cancels its unmatched message (sender_request)
  kCancelAck,      // answer: address = 1 if the message was removed unmatched
  kActiveMessage,  // opaque payload for the handler registered under am_id
};

struct WireHeader {
  MsgKind kind;
  uint8_t am_id;  // kActiveMessage: the handler's id (device.h AmId)
  uint8_t pad[2];
  uint32_t payload_bytes;  // bytes following this header
  uint32_t context_id;
  int32_t source;  // sender's rank in the communicator
  int32_t tag;
  int32_t sender;        // sender's world rank
  uint64_t total_bytes;  // whole message size
  uint64_t sender_request;
  uint64_t receiver_request;
  uint64_t address;  // kRts: sender buffer as exposed; kData: offset of the chunk
  uint64_t rkey;     // kRts: the transport's key for the exposed buffer (0 if none)
};
static_assert(sizeof(WireHeader) == 64);

}  // namespace stmpi::dev
