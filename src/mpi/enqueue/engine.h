// The enqueue engine: point-to-point transfers whose matching and handshake
// are prepared by the CPU when it enqueues them, and whose data moves only
// when the streams reach them (MPICH's MPIX_*_enqueue, HPE's MPIX_Queue and
// persistent stream operations are built on it).
//
// One Transfer is one side of a message. The protocol, over the
// communicator's two engine contexts (CommStreams::engine_context, +1):
//   send_init    (CPU) sends an envelope {sender id, bytes} on the envelope
//                context with the user's tag
//   recv_init    (CPU) posts a receive for the envelope with the user's
//                source and tag: envelopes match in MPI's order, wildcards
//                included
//   start        (stream) sender: the buffer may be read from now on, and
//                the data send (tag id on the data context) goes out;
//                receiver: the gate opens: the data receive is posted into
//                the user's buffer. The device's own protocols move the
//                data (eager into its unexpected queue until the receive is
//                posted, or rendezvous with a single-copy pull inside a
//                node), so the receive buffer is written only after the
//                receiving stream reached its start
//   wait         (stream) the stream waits until the round completed
// A persistent transfer is matched once (one envelope) and started many
// times; each start is one round, one data message, or, between ranks of
// one node, one pass through a shared-memory channel (channel.h). Everything except the
// stream operations runs under the caller's MPI lock; the stream
// operations take it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <mpi.h>

#include "stream/staging.h"

namespace stmpi::stream {
class Stream;
}

namespace stmpi::mpi {
struct Comm;
struct Datatype;
}  // namespace stmpi::mpi

namespace stmpi::mpi::enqueue {

struct Transfer;

// Called under the MPI lock when a round completes (error: the round's
// error code; status: the receive's status, empty for a send).
using CompletionFn = void (*)(void* arg, int error, const MPI_Status& status);

struct TransferArgs {
  const void* send_buf = nullptr;  // send side
  void* recv_buf = nullptr;        // receive side
  MPI_Count count = 0;
  Datatype* type = nullptr;  // retained by the transfer
  int peer = 0;              // dest, or source (MPI_ANY_SOURCE allowed); MPI_PROC_NULL ok
  int tag = 0;               // MPI_ANY_TAG allowed for a receive
  bool persistent = false;   // matched once, started many times
  CompletionFn on_complete = nullptr;
  void* on_complete_arg = nullptr;
};

// Create a transfer on a communicator that has engine contexts
// (comm.streams set): the envelope goes out (send) or is awaited (receive)
// at once. The CPU calls these in program order, under the MPI lock.
[[nodiscard]] int send_init(const TransferArgs& args, Comm& comm, Transfer** out);
[[nodiscard]] int recv_init(const TransferArgs& args, Comm& comm, Transfer** out);

// Enqueues a start (one round) on `stream`. For non-persistent transfers
// at most once.
[[nodiscard]] int enqueue_start(Transfer* t, stream::Stream& stream);

// Enqueues a wait for the last round enqueued so far: the stream blocks
// (a host stream's thread drives MPI progress meanwhile) until it
// completed; then `status` (nullable) is written and, with `release`, the
// transfer is freed (it must not be used after this call).
[[nodiscard]] int enqueue_wait(Transfer* t, stream::Stream& stream, MPI_Status* status,
                               bool release);

// The same for several transfers in one stream operation (one launch, one
// lock per poll): the starts in order; the wait until every transfer's last
// round enqueued so far completed, then statuses[i] (empty span: none;
// entries may be MPI_STATUS_IGNORE) written and, with `release`, each freed.
[[nodiscard]] int enqueue_start_all(std::span<Transfer* const> ts, stream::Stream& stream);
[[nodiscard]] int enqueue_wait_all(std::span<Transfer* const> ts, stream::Stream& stream,
                                   std::span<MPI_Status* const> statuses, bool release);

// The communicator a transfer was made on.
Comm& transfer_comm(const Transfer* t);

// Host side: rounds completed so far; the error of the last one.
uint64_t rounds_completed(const Transfer* t);
int last_error(const Transfer* t);

// Frees a transfer none of whose rounds is in flight (CPU, MPI lock held).
void release(Transfer* t);

// Enqueues fn(arg) on `stream`, run with the MPI lock held when the stream
// reaches it (the enqueued collectives start there). The function returns
// true when done; until then it is called again after a round of progress.
using LockedStep = bool (*)(void* arg);
[[nodiscard]] int enqueue_locked(stream::Stream& stream, LockedStep fn, void* arg);

// Device buffers. A transfer enqueued on a GPU stream with its buffer in
// device memory moves its data through a staging buffer (stream/staging.h):
// each start of a send (and of a receive into a type with gaps) enqueues a
// device-to-host copy of the buffer's span before the start; each wait of a
// receive enqueues the host-to-device copy after the wait. The staging
// buffer goes back to the pool after the releasing wait, or at release().
//
// The same for one buffer of an enqueued collective: `count` elements of
// `type` at `buf`; *out is left empty when nothing needs staging.
[[nodiscard]] int stage_buffer(stream::Stream& stream, const void* buf, MPI_Count count,
                               const Datatype& type, stream::Staged* out);

// Returns staging buffers whose last use is enqueued on `stream` to the
// pool once the stream has run that far: at the stream's next enqueued wait
// (no host function of their own), or after 64 of them in one.
[[nodiscard]] int release_later(stream::Stream& stream, std::vector<stream::Staged> staged);

// One round of MPI progress under the MPI lock, from any thread not
// holding it (MPIX_Stream_progress, progress threads, stream waits).
void progress_once();

}  // namespace stmpi::mpi::enqueue
