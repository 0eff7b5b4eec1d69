// Channels: the shared-memory slots a persistent transfer between two
// ranks of one node moves its rounds through, instead of one matched
// message per round (engine.h).
//
// The sender owns a channel: a header and `slots` slots of `slot_bytes`,
// carved from shared segments it creates (util/shm_segment.h), named in the
// transfer's envelope. Round k (1-based) uses slot (k - 1) % slots:
//   sender, when its stream reached start k: waits until the receiver
//           consumed round k - slots, packs the buffer into the slot, then
//           publishes written = k; the round is complete
//   receiver, when its stream reached start k: waits until written >= k,
//           unpacks the slot into its buffer, publishes consumed = k
// so the receive buffer is written only after the receiving stream reached
// its start, and the send buffer read only after the sending stream did.
// A sender whose slots are all taken keeps later rounds in a backlog of its
// own (engine.cc), so its rounds complete as eager messages would. The
// receiver marks the header attached when it maps the channel, and detached
// when its transfer goes; the space is reused only after that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace stmpi::mpi {
struct Datatype;
}

namespace stmpi::stream {
class Stream;
}

namespace stmpi::mpi::enqueue {

// What the envelope carries: where the sender's channel is.
struct ChannelRef {
  char segment[72] = {};  // the segment's name, NUL-terminated; empty: no channel
  uint64_t segment_bytes = 0;
  uint64_t offset = 0;  // of the channel's header in the segment
  uint64_t slot_bytes = 0;
  uint32_t slots = 0;
  uint32_t reserved = 0;
};

class Channel;

// The settings (STMPI_ENQUEUE_CHANNEL_*).
std::size_t channel_max_bytes();  // 0: channels off
bool channel_refuse();            // tests: receivers refuse every channel

// Sender: a channel for rounds of `bytes` packed bytes; nullptr (and *ref
// left empty) when channels are off, `bytes` is 0 or above the limit, or no
// segment space can be made: the transfer then moves each round as a message.
Channel* channel_create(std::size_t bytes, ChannelRef* ref);
// Receiver: maps the sender's channel and marks it attached; nullptr with
// *error set when it cannot.
Channel* channel_attach(const ChannelRef& ref, std::string* error);

// Sender: whether round `round`'s slot is free (the receiver consumed the
// slot's previous round, or detached); the slot; publishing the round once
// its packed bytes are in the slot.
bool channel_writable(const Channel* c, uint64_t round);
void* channel_slot(const Channel* c, uint64_t round);
void channel_publish(Channel* c, uint64_t round);

// Receiver: unpacks round `round` (`bytes` packed bytes, as the envelope
// said) into `count` x `type` at `buf` if it was written; false when not
// yet. The copy stops at the buffer's size; the caller reports truncation.
bool channel_read(Channel* c, uint64_t round, std::size_t bytes, void* buf, std::int64_t count,
                  const Datatype& type);

// Sender: whether the receiver mapped the channel.
bool channel_attached(const Channel* c);

// Sender, when its transfer goes: the space returns to the pool once the
// receiver's transfer is gone too (`refused`: at once).
void channel_release_sender(Channel* c, bool refused);
// Receiver, when its transfer goes: the sender never waits for it again.
void channel_release_receiver(Channel* c);

// Rounds as stream programs (host streams, contiguous buffers, a channel
// the receiver mapped): each round is one recorded step the stream runs
// without a host callback or MPI's lock:
//   sender   wait consumed >= k - slots and written >= k - 1, copy the
//            buffer into slot k, write written = k (at the start)
//   receiver wait written >= k and consumed >= k - 1, copy slot k into the
//            buffer, write consumed = k (at the wait)
// One step per slot is recorded once; round k runs slot (k - 1) % slots'
// step with its values shifted by the rounds before that slot's first use.
class ChannelPrograms;
ChannelPrograms* channel_programs(Channel* c, bool sender, void* data, std::size_t bytes);
[[nodiscard]] int channel_enqueue_round(ChannelPrograms* p, stream::Stream& stream, uint64_t round);
void channel_programs_free(ChannelPrograms* p);

// At the library's stop: unmaps every segment (and unlinks this rank's).
void free_channels();

}  // namespace stmpi::mpi::enqueue
