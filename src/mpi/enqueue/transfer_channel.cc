// Persistent transfers between ranks of one node over channels
// (channel.h): each round's sender and receiver side, the fallback to
// messages when a receiver refuses, and the switch to rounds run as stream
// programs.
#include <algorithm>
#include <cstring>
#include <string>

#include "device/device.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/enqueue/transfer.h"
#include "mpi/errhan/error.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/request.h"
#include "stream/stream.h"

namespace stmpi::mpi::enqueue {

namespace {

// Packs a send's round into `dst`.
void pack_round(const Transfer* t, void* dst) {
  const Datatype& type = *t->args.type;
  if (type.contiguous)
    std::memcpy(dst, static_cast<const char*>(t->args.send_buf) + type.true_lb,
                static_cast<std::size_t>(t->envelope.bytes));
  else type.pack(t->args.send_buf, t->args.count, dst);
}

}  // namespace

int open_channel(Transfer* t) {
  const TransferArgs& args = t->args;
  if (!args.persistent) return MPI_SUCCESS;
  // Processes of another job (spawned, connected) are outside the peer table.
  const int peer = t->comm->world_rank(args.peer);
  if (peer < 0 || peer >= dev::world_size() ||
      dev::peer_info(peer).transport != dev::PeerTransport::kShm)
    return MPI_SUCCESS;
  t->channel = channel_create(t->envelope.bytes, &t->envelope.channel);
  if (t->channel == nullptr) return MPI_SUCCESS;  // rounds go as messages
  t->channel_state = ChannelState::kOpen;
  return pt2pt::irecv(nullptr, 0, byte_type(), args.peer, control_tag(t->id), *t->comm,
                      data_context(*t->comm), &t->control_req);
}

// A channel's sender: each round the stream reached is packed into its
// slot, or into the backlog while slots (or earlier rounds) wait, and is
// complete then; the backlog moves into slots as the receiver frees them.
// Until the receiver maps the channel, a refusal may come instead: then
// the transfer falls back to messages.
int advance_channel_send(Transfer* t) {
  int moved = 0;
  if (t->channel_state == ChannelState::kOpen) {
    if (channel_attached(t->channel)) {
      t->channel_state = ChannelState::kAttached;
      cancel_receive(&t->control_req);
    } else if (reap(t, &t->control_req)) {
      t->channel_state = ChannelState::kRefused;
      t->channel_rounds = t->posted - t->backlog.size();
      return moved + 1;
    }
  }
  const auto bytes = static_cast<std::size_t>(t->envelope.bytes);
  for (uint64_t next = t->posted - t->backlog.size() + 1;
       !t->backlog.empty() && channel_writable(t->channel, next); ++next, ++moved) {
    std::memcpy(channel_slot(t->channel, next), t->backlog.front().data(), bytes);
    channel_publish(t->channel, next);
    t->backlog.pop_front();
  }
  for (const uint64_t reached = t->reached.load(std::memory_order_acquire); t->posted < reached;
       ++moved) {
    const uint64_t round = t->posted + 1;
    if (t->backlog.empty() && channel_writable(t->channel, round)) {
      pack_round(t, channel_slot(t->channel, round));
      channel_publish(t->channel, round);
    } else if (t->programs != nullptr) {
      break;  // stream mode: the round waits for its slot (stream_mode())
    } else {
      t->backlog.emplace_back(bytes);
      pack_round(t, t->backlog.back().data());
    }
    t->posted = round;
    t->error = MPI_SUCCESS;
    status_set_empty(&t->status);
    round_done(t);
  }
  return moved;
}

// After a refusal: the rounds the slots held, then the backlog's, go out as
// messages, in order, before any later round. True once none is left.
bool resend_done(Transfer* t, int* moved) {
  if (t->resending) {
    if (!reap(t, &t->data_req)) return false;
    t->resending = false;
    if (t->resent > t->channel_rounds) t->backlog.pop_front();
    ++*moved;
  }
  const void* from = nullptr;
  if (t->resent < t->channel_rounds) from = channel_slot(t->channel, t->resent + 1);
  else if (!t->backlog.empty()) from = t->backlog.front().data();
  else return true;
  ++t->resent;
  note(t, pt2pt::isend(from, static_cast<MPI_Count>(t->envelope.bytes), byte_type(), t->args.peer,
                       data_tag(t->id), *t->comm, data_context(*t->comm), dev::SendMode::kStandard,
                       &t->data_req));
  t->resending = true;
  ++*moved;
  return false;
}

// The receiver maps the sender's channel, or refuses it: then the sender
// sends every round as a message.
void attach(Transfer* t) {
  std::string why;
  t->channel = channel_attach(t->envelope.channel, &why);
  if (t->channel != nullptr) return;
  note(t,
       pt2pt::isend(nullptr, 0, byte_type(), t->source, control_tag(t->envelope.sender_id),
                    *t->comm, data_context(*t->comm), dev::SendMode::kStandard, &t->control_req));
}

// A channel's receiver: each round the stream reached is read once written.
int advance_channel_recv(Transfer* t) {
  int moved = 0;
  const uint64_t reached = t->reached.load(std::memory_order_acquire);
  const auto bytes = static_cast<std::size_t>(t->envelope.bytes);
  while (t->posted < reached && channel_read(t->channel, t->posted + 1, bytes, t->args.recv_buf,
                                             t->args.count, *t->args.type)) {
    ++t->posted;
    const auto capacity = static_cast<uint64_t>(t->args.count * t->args.type->size);
    t->error = bytes <= capacity
                   ? MPI_SUCCESS
                   : errhan::make_error(MPI_ERR_TRUNCATE,
                                        "a round of %llu bytes from rank %d arrived at a "
                                        "persistent receive of %llu bytes",
                                        static_cast<unsigned long long>(bytes), t->source,
                                        static_cast<unsigned long long>(capacity));
    status_set_empty(&t->status);
    status_set_bytes(&t->status, static_cast<MPI_Count>(std::min<uint64_t>(bytes, capacity)));
    recv_round_done(t);
    ++moved;
  }
  return moved;
}

// A channel's sender that wrote rounds stays active until the receiver
// mapped the channel (or refused it and the rounds were re-sent): the
// refusal must be seen even if no later start comes. So does one with a
// backlog, until the receiver made room for it.
bool channel_busy(const Transfer* t) {
  return (t->channel_state == ChannelState::kOpen && t->posted > 0) || !t->backlog.empty() ||
         (t->channel_state == ChannelState::kRefused && t->resent < t->channel_rounds);
}

// Whether a transfer's rounds from now on run as stream programs
// (channel.h): a channel the receiver mapped, contiguous data that fits, a
// host stream, no staging, no completion callback. A sender switches only
// with an empty backlog, and its rounds started before the switch but run
// after it wait for their slot instead of joining the backlog: a program
// waiting for an earlier round's slot would not get the progress that
// drains a backlog. Programs order themselves by the channel's counters,
// so they may run on any host stream; once switched, a transfer stays so.
bool stream_mode(Transfer* t, const stream::Stream& stream) {
  if (!t->args.persistent) return false;  // one round: nothing to record
  if (t->programs != nullptr) return true;
  // A receiver matches when the CPU enqueues, if its envelope is there:
  // mapping the channel moves no data.
  if (!t->is_send && t->args.peer != MPI_PROC_NULL) (void)try_match(t);
  if (t->channel == nullptr || t->staged || t->args.on_complete != nullptr ||
      stream.backend() != stream::BackendKind::kHost || !t->args.type->contiguous)
    return false;
  const auto bytes = static_cast<std::size_t>(t->envelope.bytes);
  char* data;
  if (t->is_send) {
    if (!channel_attached(t->channel) || !t->backlog.empty()) return false;
    data = static_cast<char*>(const_cast<void*>(t->args.send_buf));
  } else {
    if (bytes > static_cast<uint64_t>(t->args.count * t->args.type->size)) return false;
    data = static_cast<char*>(t->args.recv_buf);
  }
  t->programs = channel_programs(t->channel, t->is_send, data + t->args.type->true_lb, bytes);
  return true;
}

int check_program_stream(const Transfer* t, const stream::Stream& stream, const char* what) {
  if (t->programs == nullptr || stream.backend() == stream::BackendKind::kHost) return MPI_SUCCESS;
  return errhan::make_error(
      MPI_ERR_REQUEST,
      "%s: a persistent transfer with rank %d whose rounds run as host-stream operations (a "
      "shared-memory channel) cannot continue on a %s stream; start and wait for it on host "
      "streams",
      what, t->is_send ? t->args.peer : t->source, stream::backend_name(stream.backend()));
}

void close_channel(Transfer* t) {
  if (t->is_send) cancel_receive(&t->control_req);
  else cancel_pending(&t->control_req);
  if (t->programs != nullptr) channel_programs_free(t->programs);
  if (t->channel == nullptr) return;
  if (t->is_send) channel_release_sender(t->channel, t->channel_state == ChannelState::kRefused);
  else channel_release_receiver(t->channel);
}

}  // namespace stmpi::mpi::enqueue
