// The device API: what the MPI layer (src/mpi) may ask of the device. Peers
// are addressed by world rank; messages are contiguous bytes (the MPI layer
// packs derived datatypes). Everything here runs under the caller's lock
// when threads are in use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "device/match/key.h"
#include "device/progress.h"
#include "device/request_dev.h"

namespace stmpi::pmi {
class Client;
}

namespace stmpi::dev {

struct UnexpectedMessage;

[[nodiscard]] int init(pmi::Client& pmi);  // MPI error code
[[nodiscard]] int finalize();
int world_rank();
int world_size();

// The peer table: for each world rank, its node (as the launcher says:
// PMI_process_mapping, else host names) and the transport that reaches it.
enum class PeerTransport : uint8_t {
  kSelf,  // this process
  kShm,   // another process of this node: the shared-memory rings
  kNet,   // another node, or every peer under STMPI_DEVICE_NOLOCAL=yes: the network module
};
struct PeerInfo {
  int node = 0;
  PeerTransport transport = PeerTransport::kSelf;
};
const PeerInfo& peer_info(int world_rank);
int my_node();
// World ranks of this node, ascending (this rank among them).
std::span<const int> node_ranks();
// How many ranks run on this node (whatever transport reaches them).
int ranks_on_node();

// Starts a send of `bytes` at `buf` to world rank `dest`; `key` carries the
// communicator's context id, the sender's rank in it and the tag.
[[nodiscard]] int isend(const void* buf, std::size_t bytes, int dest, const match::Key& key,
                        SendMode mode, RequestDev* req);
// Posts a receive; `pattern` may hold wildcards.
[[nodiscard]] int irecv(void* buf, std::size_t capacity, const match::Key& pattern,
                        RequestDev* req);
// Removes a posted, unmatched receive; false if it has matched already.
bool cancel_recv(RequestDev* req);
// Asks the receiver to drop a send it has not matched yet. The request
// then completes either with `cancelled` set or, if it had matched, as a
// normal send. Sends already complete are left alone.
void cancel_send(RequestDev* req);

struct ProbeInfo {
  int source = 0;
  int tag = 0;
  std::size_t bytes = 0;
};
// Looks for an arrived message; iprobe leaves it queued, improbe takes it
// (a matched probe) for a later imrecv.
bool iprobe(const match::Key& pattern, ProbeInfo* info);
UnexpectedMessage* improbe(const match::Key& pattern, ProbeInfo* info);
[[nodiscard]] int imrecv(UnexpectedMessage* msg, void* buf, std::size_t capacity, RequestDev* req);

// progress(), the hooks and wait_until() are in device/progress.h.

// Active messages, by handler id: opaque payloads of up to am_max_bytes()
// bytes, delivered to the handler registered under `id` at `peer` by its
// progress(), in order with other messages from this process. am_send
// copies the data before it returns. The ids are one list, here.
enum AmId : uint8_t {
  kAmRma = 0,  // device/rma/am_rma.cc: RMA and 64-bit atomics on regions no other way reaches
  kAmIdCount
};
using AmHandler = void (*)(int sender, const char* data, std::size_t bytes);
void register_am_handler(uint8_t id, AmHandler handler);
[[nodiscard]] int am_send(int peer, uint8_t id, const void* data, std::size_t bytes);
std::size_t am_max_bytes();

}  // namespace stmpi::dev
