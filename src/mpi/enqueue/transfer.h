// The enqueue engine's transfer record and the pieces its two sources
// share (engine.cc: the protocol over messages and the stream operations;
// transfer_channel.cc: persistent transfers inside a node over channels).
// Internal to src/mpi/enqueue.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <vector>

#include <mpi.h>

#include "mpi/enqueue/channel.h"
#include "mpi/enqueue/engine.h"
#include "stream/staging.h"

namespace stmpi::stream {
class Stream;
}

namespace stmpi::mpi {
struct Request;
}

namespace stmpi::mpi::enqueue {

// What a send tells the receiver when it is enqueued.
struct Envelope {
  uint32_t sender_id = 0;
  uint32_t reserved = 0;
  uint64_t bytes = 0;
  ChannelRef channel;  // a persistent transfer inside a node: its slots
};

// A sender's channel (channel.h): open until the receiver maps it or
// refuses; after a refusal the rounds already in the slots are re-sent as
// messages, then every round is one.
enum class ChannelState : uint8_t { kNone, kOpen, kAttached, kRefused };

struct Transfer {
  bool is_send = false;
  TransferArgs args;
  Comm* comm = nullptr;        // retained
  uint32_t id = 0;             // the send side's id: data tag id
  Envelope envelope;           // sent (send side) or received (receive side)
  bool matched = false;        // receive: the envelope arrived
  int source = MPI_PROC_NULL;  // receive: the sender's rank once matched
  int match_tag = 0;           // receive: the message's tag once matched
  Request* envelope_req = nullptr;
  Request* data_req = nullptr;
  uint64_t enqueued = 0;                             // starts enqueued by the CPU
  std::atomic<uint64_t> reached{0};                  // starts the streams reached
  uint64_t posted = 0;                               // rounds whose data movement began
  std::atomic<uint64_t> completed{0};                // rounds complete
  int error = MPI_SUCCESS;                           // of the last round
  MPI_Status status{};                               // of the last round (receive)
  stream::Staged staged;                             // device buffer: its host copy
  Channel* channel = nullptr;                        // persistent, inside a node: the slots
  ChannelState channel_state = ChannelState::kNone;  // send side
  Request* control_req = nullptr;        // send: receive of a refusal; receive: the refusal sent
  std::list<std::vector<char>> backlog;  // send: packed rounds waiting for a slot (a list:
                                         // nothing allocated while empty)
  uint64_t channel_rounds = 0;           // send, refused: rounds the slots held then
  uint64_t resent = 0;     // send, refused: rounds re-sent (slots', then the backlog's)
  bool resending = false;  // send: data_req is a re-sent round
  bool released = false;   // send: released with rounds still to deliver
  ChannelPrograms* programs = nullptr;  // stream mode: rounds as stream programs
  bool stage_checked = false;           // staging decided at the first start
  bool active = false;                  // on the active list
  Transfer* active_prev = nullptr;      // the list progress walks: streams
  Transfer* active_next = nullptr;      // reached a start whose round is open
};

// Tags stay below MPI_TAG_UB (2^28 - 1): ids wrap at 2^27.
constexpr uint32_t kIdMask = (1u << 27) - 1;

Datatype& byte_type();
uint32_t data_context(const Comm& comm);
int data_tag(uint32_t id);
// A receiver refusing a channel tells the sender on the data context with
// the sender's id and this bit (data tags stay below it).
int control_tag(uint32_t id);

// Keeps the first error of a round.
void note(Transfer* t, int err);
// Retires *req if complete; true then.
bool reap(Transfer* t, Request** req, MPI_Status* status = MPI_STATUS_IGNORE);
// A round completed: the callback, then the count.
void round_done(Transfer* t);
// A receive's round completed, t->status holding its count: the status's
// source, tag and error, then round_done.
void recv_round_done(Transfer* t);
// Waits for *req and retires it.
void cancel_pending(Request** req);
// Drops a posted receive nothing matched yet (or retires it if something did).
void cancel_receive(Request** req);
// A receive's envelope arrived: matched to its sender (and the channel
// mapped or refused). True once it has.
bool try_match(Transfer* t);

// transfer_channel.cc. A persistent send to a rank of this node gets a
// channel (the envelope names it) and a receive for a refusal.
[[nodiscard]] int open_channel(Transfer* t);
// The receiver maps the sender's channel, or refuses it.
void attach(Transfer* t);
// Advance a channel's sender or receiver (MPI lock held); rounds moved.
int advance_channel_send(Transfer* t);
int advance_channel_recv(Transfer* t);
// After a refusal: re-sends the rounds the channel held; true once done.
bool resend_done(Transfer* t, int* moved);
// Rounds complete for the sender but not yet in the receiver's reach.
bool channel_busy(const Transfer* t);
// Whether the transfer's rounds run as stream programs from now on.
bool stream_mode(Transfer* t, const stream::Stream& stream);
// MPI_ERR_REQUEST when a transfer running as stream programs meets a GPU
// stream (`what`: the operation, start or wait).
[[nodiscard]] int check_program_stream(const Transfer* t, const stream::Stream& stream,
                                       const char* what);
// The channel's part of freeing a transfer.
void close_channel(Transfer* t);

}  // namespace stmpi::mpi::enqueue
