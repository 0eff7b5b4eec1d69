// The enqueue engine (engine.h): transfer records, their protocol, the
// progress hook that advances them, and the operations streams run.
#include "mpi/enqueue/engine.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "device/device.h"
#include "device/progress.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/enqueue/stream_object.h"
#include "mpi/enqueue/transfer.h"
#include "mpi/errhan/error.h"
#include "mpi/init/state.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/request.h"
#include "stream/stream.h"

namespace stmpi::mpi::enqueue {

Datatype& byte_type() { return *datatype_get(MPI_BYTE); }
uint32_t data_context(const Comm& comm) { return comm.streams->engine_context + 1; }
int data_tag(uint32_t id) { return static_cast<int>(id); }
// A receiver refusing a channel tells the sender on the data context with
// the sender's id and this bit (data tags stay below it).
int control_tag(uint32_t id) { return static_cast<int>(id | (kIdMask + 1)); }

void note(Transfer* t, int err) {
  if (err != MPI_SUCCESS && t->error == MPI_SUCCESS) t->error = err;
}

// Retires *req if complete; true then.
bool reap(Transfer* t, Request** req, MPI_Status* status) {
  if (*req == nullptr || !request_test(*req)) return false;
  note(t, request_retire(*req, status));
  *req = nullptr;
  return true;
}

void round_done(Transfer* t) {
  if (t->args.on_complete != nullptr)
    t->args.on_complete(t->args.on_complete_arg, t->error, t->status);
  t->completed.fetch_add(1, std::memory_order_release);
}

void recv_round_done(Transfer* t) {
  t->status.MPI_SOURCE = t->source;
  t->status.MPI_TAG = t->match_tag;
  t->status.MPI_ERROR = t->error;
  round_done(t);
}

void cancel_pending(Request** req) {
  if (*req == nullptr) return;
  request_wait(*req);
  (void)request_retire(*req, MPI_STATUS_IGNORE);
  *req = nullptr;
}

// Drops a posted receive nothing matched yet (or retires it if something did).
void cancel_receive(Request** req) {
  if (*req == nullptr) return;
  Request* r = *req;
  if (dev::cancel_recv(&r->dev)) {
    r->finished = true;
    status_set_empty(&r->status);
    status_set_cancelled(&r->status, true);
    r->dev.done.store(true, std::memory_order_release);
  }
  cancel_pending(req);
}

// A receive's envelope arrived: matched to its sender (and the channel
// mapped or refused). True once it has.
bool try_match(Transfer* t) {
  if (t->matched) return true;
  MPI_Status st;
  if (!reap(t, &t->envelope_req, &st)) return false;
  t->matched = true;
  t->source = st.MPI_SOURCE;
  t->match_tag = st.MPI_TAG;
  if (t->envelope.channel.segment[0] != '\0') attach(t);
  return true;
}

namespace {

// Progress advances only the transfers a stream has started and whose
// round is still open: a CPU that enqueued a thousand steps ahead has
// thousands of transfers, and walking them all on every progress call would
// make each step cost time in proportion to the steps still queued.
Transfer* g_active = nullptr;
int g_hook = -1;
uint32_t g_next_id = 0;

int advance_send(Transfer* t) {
  int moved = 0;
  if (reap(t, &t->envelope_req)) ++moved;
  if (t->channel_state == ChannelState::kOpen || t->channel_state == ChannelState::kAttached) {
    moved += advance_channel_send(t);
    if (t->channel_state != ChannelState::kRefused) return moved;
  }
  if (t->channel_state == ChannelState::kRefused && !resend_done(t, &moved)) return moved;
  const uint64_t reached = t->reached.load(std::memory_order_acquire);
  if (t->posted < reached && t->data_req == nullptr) {
    // The stream reached the start: the buffer may be read from now on.
    t->error = MPI_SUCCESS;
    ++t->posted;
    note(t,
         pt2pt::isend(t->args.send_buf, t->args.count, *t->args.type, t->args.peer, data_tag(t->id),
                      *t->comm, data_context(*t->comm), dev::SendMode::kStandard, &t->data_req));
    ++moved;
  }
  if (reap(t, &t->data_req)) {
    status_set_empty(&t->status);
    round_done(t);
    ++moved;
  }
  return moved;
}

int advance_recv(Transfer* t) {
  int moved = 0;
  if (reap(t, &t->control_req)) ++moved;
  if (!t->matched) {
    if (!try_match(t)) return moved;
    ++moved;
  }
  if (t->channel != nullptr) return moved + advance_channel_recv(t);
  const uint64_t reached = t->reached.load(std::memory_order_acquire);
  if (t->posted < reached && t->data_req == nullptr) {
    t->error = MPI_SUCCESS;
    ++t->posted;
    // Gate open: the buffer is the receive's from now on.
    const uint32_t sender = t->envelope.sender_id;
    note(t, pt2pt::irecv(t->args.recv_buf, t->args.count, *t->args.type, t->source,
                         data_tag(sender), *t->comm, data_context(*t->comm), &t->data_req));
    ++moved;
  }
  MPI_Status st;
  if (reap(t, &t->data_req, &st)) {
    t->status = st;
    recv_round_done(t);
    ++moved;
  }
  return moved;
}

int advance(Transfer* t) {
  if (t->args.peer == MPI_PROC_NULL) {  // nothing to move: each start completes
    int moved = 0;
    for (; t->posted < t->reached.load(std::memory_order_acquire); ++moved) {
      ++t->posted;
      status_set_empty(&t->status);
      t->status.MPI_SOURCE = MPI_PROC_NULL;
      t->status.MPI_TAG = MPI_ANY_TAG;
      round_done(t);
    }
    return moved;
  }
  return t->is_send ? advance_send(t) : advance_recv(t);
}

void activate(Transfer* t) {
  if (t->active) return;
  t->active = true;
  t->active_prev = nullptr;
  t->active_next = g_active;
  if (g_active != nullptr) g_active->active_prev = t;
  g_active = t;
}

void deactivate(Transfer* t) {
  if (!t->active) return;
  t->active = false;
  if (t->active_prev != nullptr) t->active_prev->active_next = t->active_next;
  else g_active = t->active_next;
  if (t->active_next != nullptr) t->active_next->active_prev = t->active_prev;
}

// Nothing moves until its stream reaches the next start (an envelope still
// in flight then is reaped at that round or at release), nor for a channel
// that is not busy (channel_busy).
bool idle(const Transfer* t) {
  return !channel_busy(t) && t->posted == t->reached.load(std::memory_order_acquire) &&
         t->data_req == nullptr;
}

void free_transfer(Transfer* t);

// Completion callbacks never release transfers, so the next link stays valid.
// A transfer released while its channel still had rounds to deliver
// (`released`) is freed here once they are delivered.
int advance_all(void*) {
  int moved = 0;
  for (Transfer *t = g_active, *next = nullptr; t != nullptr; t = next) {
    next = t->active_next;
    moved += advance(t);
    if (!idle(t)) continue;
    deactivate(t);
    if (t->released) free_transfer(t);
  }
  return moved;
}

Transfer* make(const TransferArgs& args, Comm& comm, bool is_send) {
  auto* t = new Transfer;
  t->is_send = is_send;
  t->args = args;
  t->comm = &comm;
  comm_retain(&comm);
  datatype_retain(args.type);
  g_next_id = (g_next_id + 1) & kIdMask;
  t->id = g_next_id;
  if (g_hook < 0) g_hook = dev::add_progress_hook(advance_all, nullptr);
  return t;
}

using StartBatch = std::vector<Transfer*>;

// A stream's start of one round (MPI lock held).
void start_locked(Transfer* t) {
  t->reached.fetch_add(1, std::memory_order_acq_rel);
  advance(t);
  if (!idle(t)) activate(t);
}

void start_op(void* arg) {
  GlobalLockScope lock;
  start_locked(static_cast<Transfer*>(arg));
}

// Several starts in one stream operation: one lock, one launch.
void start_all_op(void* arg) {
  auto* ts = static_cast<StartBatch*>(arg);
  {
    GlobalLockScope lock;
    for (Transfer* t : *ts) start_locked(t);
  }
  delete ts;
}

struct WaitItem {
  Transfer* t;
  uint64_t target;  // rounds that must be complete
  MPI_Status* status;
};

struct WaitOp {
  std::vector<WaitItem> items;
  bool release = false;
  std::vector<stream::Staged> returns;  // staging buffers of earlier waits: back to the pool
};

// True when every item's round completed (MPI lock held).
bool all_complete(WaitOp& op) {
  bool done = true;
  for (WaitItem& item : op.items) {
    if (item.t->completed.load(std::memory_order_acquire) >= item.target) continue;
    advance(item.t);
    done = done && item.t->completed.load(std::memory_order_acquire) >= item.target;
  }
  return done;
}

void wait_op(void* arg) {
  auto* op = static_cast<WaitOp*>(arg);
  for (stream::Staged& staged : op->returns) stream::release_now(staged);
  for (unsigned spins = 0;; ++spins) {
    {
      GlobalLockScope lock;
      if (all_complete(*op)) {
        for (WaitItem& item : op->items) {
          if (item.status != MPI_STATUS_IGNORE) *item.status = item.t->status;
          if (op->release) release(item.t);
        }
        break;
      }
      dev::progress();
    }
    if (spins > 64) sched_yield();
  }
  delete op;
}

struct LockedOp {
  LockedStep fn;
  void* arg;
};

void locked_op(void* arg) {
  auto* op = static_cast<LockedOp*>(arg);
  for (unsigned spins = 0;; ++spins) {
    {
      GlobalLockScope lock;
      if (op->fn(op->arg)) break;
      dev::progress();
    }
    if (spins > 64) sched_yield();
  }
  delete op;
}

// Decides at a transfer's first start whether its buffer needs staging, and
// points the transfer at the host copy if so.
int stage_transfer(Transfer* t, stream::Stream& stream) {
  if (t->stage_checked) return MPI_SUCCESS;
  t->stage_checked = true;
  if (t->args.peer == MPI_PROC_NULL) return MPI_SUCCESS;
  const void* buf = t->is_send ? t->args.send_buf : t->args.recv_buf;
  if (int err = stage_buffer(stream, buf, t->args.count, *t->args.type, &t->staged);
      err != MPI_SUCCESS)
    return err;
  if (t->is_send) t->args.send_buf = t->staged.host_address(t->args.send_buf);
  else t->args.recv_buf = t->staged.host_address(t->args.recv_buf);
  return MPI_SUCCESS;
}

// Device -> host before a start: what a send reads, or a receive's gaps.
int copy_before_start(Transfer* t, stream::Stream& stream) {
  if (int err = stage_transfer(t, stream); err != MPI_SUCCESS) return err;
  if (!t->staged || !(t->is_send || !t->args.type->contiguous)) return MPI_SUCCESS;
  return stream::copy_in(stream, t->staged);
}

// A staged receive writes only its staging buffer (the stream copies it to
// the user's buffer after the wait), so its start need not wait for the
// stream: it starts when the CPU enqueues it, and the data can arrive while
// the stream is still busy. Not when the staging buffer must first receive
// the user's buffer (a type with gaps), nor for persistent transfers (a
// later round would overwrite a staging buffer the stream has not yet
// copied out).
bool starts_at_enqueue(const Transfer* t) {
  return t->staged && !t->is_send && !t->args.persistent && t->args.type->contiguous;
}

void start_now(Transfer* t) {
  if (t_holds_global_lock) {
    start_locked(t);
    return;
  }
  GlobalLockScope lock;
  start_locked(t);
}

// Staging buffers whose last use the stream has enqueued go back to the
// pool at the stream's next wait (one host function fewer per wait); after
// kMaxReturns of them, in a host function of their own.
constexpr std::size_t kMaxReturns = 64;
std::mutex g_returns_mutex;  // enqueue calls reach it without the MPI lock
std::unordered_map<const stream::Stream*, std::vector<stream::Staged>> g_returns;
// Whether g_returns holds anything: waits on streams that never staged (every
// host stream) skip the mutex.
std::atomic<bool> g_have_returns{false};

std::vector<stream::Staged> take_returns(const stream::Stream& stream) {
  if (!g_have_returns.load(std::memory_order_acquire)) return {};
  std::lock_guard guard(g_returns_mutex);
  auto it = g_returns.find(&stream);
  if (it == g_returns.end()) return {};
  std::vector<stream::Staged> out = std::move(it->second);
  g_returns.erase(it);
  if (g_returns.empty()) g_have_returns.store(false, std::memory_order_release);
  return out;
}

}  // namespace

int stage_buffer(stream::Stream& stream, const void* buf, MPI_Count count, const Datatype& type,
                 stream::Staged* out) {
  *out = stream::Staged{};
  if (buf == nullptr || count <= 0 || type.size == 0) return MPI_SUCCESS;
  const MPI_Aint span = (static_cast<MPI_Aint>(count) - 1) * type.extent + type.true_extent;
  char* start = static_cast<char*>(const_cast<void*>(buf)) + type.true_lb;
  return stream::stage(stream, start, static_cast<std::size_t>(span), out);
}

int send_init(const TransferArgs& args, Comm& comm, Transfer** out) {
  Transfer* t = make(args, comm, true);
  *out = t;
  if (args.peer == MPI_PROC_NULL) return MPI_SUCCESS;
  t->envelope.sender_id = t->id;
  t->envelope.bytes = static_cast<uint64_t>(args.count * args.type->size);
  if (int err = open_channel(t); err != MPI_SUCCESS) return err;
  // Without a channel the envelope stops before its reference: the
  // receiver's buffer keeps an empty one.
  const MPI_Count bytes = t->channel != nullptr ? sizeof t->envelope : offsetof(Envelope, channel);
  return pt2pt::isend(&t->envelope, bytes, byte_type(), args.peer, args.tag, comm,
                      comm.streams->engine_context, dev::SendMode::kStandard, &t->envelope_req);
}

int recv_init(const TransferArgs& args, Comm& comm, Transfer** out) {
  Transfer* t = make(args, comm, false);
  *out = t;
  if (args.peer == MPI_PROC_NULL) return MPI_SUCCESS;
  return pt2pt::irecv(&t->envelope, sizeof t->envelope, byte_type(), args.peer, args.tag, comm,
                      comm.streams->engine_context, &t->envelope_req);
}

// Launches onto a GPU stream run without the MPI lock (GlobalUnlockScope):
// a full launch queue blocks until the GPU ran earlier work, host functions
// of ours that take the lock included. Nothing below reads engine state
// that those functions change.
bool unlock_for(const stream::Stream& stream) {
  return stream.backend() != stream::BackendKind::kHost;
}

int enqueue_start(Transfer* t, stream::Stream& stream) {
  return enqueue_start_all({&t, 1}, stream);
}

// Whether a transfer's rounds run as stream programs (decided by
// stream_mode() at its starts).
bool by_program(const Transfer* t) { return t->programs != nullptr; }

int enqueue_start_all(std::span<Transfer* const> ts, stream::Stream& stream) {
  for (Transfer* t : ts)
    if (int err = check_program_stream(t, stream, "start"); err != MPI_SUCCESS) return err;
  {
    GlobalUnlockScope unlocked(unlock_for(stream));
    for (Transfer* t : ts)
      if (int err = copy_before_start(t, stream); err != MPI_SUCCESS) return err;
  }
  // Most calls start one transfer: no list is built for it.
  std::size_t launched = 0;
  Transfer* first = nullptr;
  for (Transfer* t : ts) {
    ++t->enqueued;
    if (stream_mode(t, stream)) {
      // A receiver's round runs at its wait; a sender's here.
      if (t->is_send)
        if (int err = channel_enqueue_round(t->programs, stream, t->enqueued)) return err;
    } else if (starts_at_enqueue(t)) {
      start_now(t);
    } else if (launched++ == 0) {
      first = t;
    }
  }
  if (launched == 0) return MPI_SUCCESS;
  GlobalUnlockScope unlocked(unlock_for(stream));
  if (launched == 1) return stream.launch(start_op, first);
  auto* batch = new StartBatch;
  batch->reserve(launched);
  for (Transfer* t : ts)
    if (!starts_at_enqueue(t) && !by_program(t)) batch->push_back(t);
  const int err = stream.launch(start_all_op, batch);
  if (err != MPI_SUCCESS) delete batch;
  return err;
}

int enqueue_wait(Transfer* t, stream::Stream& stream, MPI_Status* status, bool release) {
  return enqueue_wait_all({&t, 1}, stream, {&status, 1}, release);
}

int enqueue_wait_all(std::span<Transfer* const> ts, stream::Stream& stream,
                     std::span<MPI_Status* const> statuses, bool release) {
  if (ts.empty()) return MPI_SUCCESS;
  for (Transfer* t : ts)
    if (int err = check_program_stream(t, stream, "wait"); err != MPI_SUCCESS) return err;
  // Stream mode: a receiver's round is its program, here; a sender's round
  // completed when its program ran. The others wait in one operation.
  std::size_t waiting = 0;
  for (Transfer* t : ts) {
    if (!by_program(t)) {
      ++waiting;
    } else if (!t->is_send) {
      if (int err = channel_enqueue_round(t->programs, stream, t->enqueued)) return err;
    }
  }
  if (waiting == 0) return MPI_SUCCESS;
  auto* op = new WaitOp;
  op->release = release;
  op->items.reserve(waiting);
  // Host -> device copies after the wait; with `release`, the staging
  // buffers leave the transfers (the wait frees them) and return to the
  // pool once the copies ran.
  std::vector<stream::CopyRange> copies;
  std::vector<stream::Staged> staged;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (by_program(ts[i])) continue;
    op->items.push_back(
        {ts[i], ts[i]->enqueued, statuses.empty() ? MPI_STATUS_IGNORE : statuses[i]});
    const stream::Staged& s = ts[i]->staged;
    if (!s) continue;
    if (!ts[i]->is_send) copies.push_back({s.device, s.host, s.bytes});
    if (release) staged.push_back(std::exchange(ts[i]->staged, stream::Staged{}));
  }
  // The wait may free the transfers once launched: nothing reads them after.
  GlobalUnlockScope unlocked(unlock_for(stream));
  op->returns = take_returns(stream);
  int err = stream.launch(wait_op, op);
  if (err != MPI_SUCCESS) {
    for (stream::Staged& s : op->returns) stream::release_now(s);
    for (stream::Staged& s : staged) stream::release_now(s);
    delete op;
    return err;
  }
  if (!copies.empty()) err = stream.copy(copies);
  const int release_err = release_later(stream, std::move(staged));
  return err != MPI_SUCCESS ? err : release_err;
}

int release_later(stream::Stream& stream, std::vector<stream::Staged> staged) {
  std::erase_if(staged, [](const stream::Staged& s) { return !s; });
  if (staged.empty()) return MPI_SUCCESS;
  {
    std::lock_guard guard(g_returns_mutex);
    std::vector<stream::Staged>& pending = g_returns[&stream];
    pending.insert(pending.end(), staged.begin(), staged.end());
    g_have_returns.store(true, std::memory_order_release);
    if (pending.size() < kMaxReturns) return MPI_SUCCESS;
  }
  return stream::release_after(stream, take_returns(stream));
}

Comm& transfer_comm(const Transfer* t) { return *t->comm; }

uint64_t rounds_completed(const Transfer* t) {
  return t->completed.load(std::memory_order_acquire);
}
int last_error(const Transfer* t) { return t->error; }

void release(Transfer* t) {
  if (channel_busy(t)) {
    // Rounds complete for the sender are not yet in the receiver's reach
    // (backlog, or a refusal may still come): progress finishes them.
    t->released = true;
    activate(t);
    return;
  }
  free_transfer(t);
}

namespace {

void free_transfer(Transfer* t) {
  stream::release_now(t->staged);
  cancel_pending(&t->envelope_req);
  cancel_pending(&t->data_req);
  close_channel(t);
  deactivate(t);
  datatype_release(t->args.type);
  comm_release(t->comm);
  delete t;
}

}  // namespace

int enqueue_locked(stream::Stream& stream, LockedStep fn, void* arg) {
  GlobalUnlockScope unlocked(unlock_for(stream));
  return stream.launch(locked_op, new LockedOp{fn, arg});
}

void progress_once() {
  GlobalLockScope lock;
  dev::progress();
}

}  // namespace stmpi::mpi::enqueue
