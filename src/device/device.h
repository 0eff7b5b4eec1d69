// The device API: what the MPI layer (src/mpi) may ask of the device. Peers
// are addressed by world rank; messages are contiguous bytes (the MPI layer
// packs derived datatypes). Everything here runs under the caller's lock
// when threads are in use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "device/match/key.h"
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

// Moves messages: polls incoming rings and pushes queued outgoing work.
void progress();

// Active messages for modules above the device (the RMA fallback,
// device/rma/am_rma.cc): opaque payloads of up to am_max_bytes() bytes,
// delivered to the handler at `peer` by its progress(), in order with other
// messages from this process. am_send copies the data before it returns.
using AmHandler = void (*)(int sender, const char* data, std::size_t bytes);
void set_am_handler(AmHandler handler);
[[nodiscard]] int am_send(int peer, const void* data, std::size_t bytes);
std::size_t am_max_bytes();

}  // namespace stmpi::dev
