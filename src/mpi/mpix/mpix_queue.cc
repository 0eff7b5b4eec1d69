// HPE Cray MPICH's queues (include/mpix.h): MPIX_Create_queue,
// MPIX_Free_queue, MPIX_Enqueue_send, MPIX_Enqueue_recv, MPIX_Enqueue_start,
// MPIX_Enqueue_wait, over the enqueue engine (src/mpi/enqueue/engine.h).
//
// A queue is a duplicate of the user's communicator with the engine's
// contexts, a stream, and two lists: operations enqueued since the last
// MPIX_Enqueue_start (their envelopes already matched or awaited by the
// engine) and operations started since the last MPIX_Enqueue_wait. At
// MPIX_Enqueue_start every pending operation's start is enqueued in FIFO
// order, so nothing moves before the stream gets there; at
// MPIX_Enqueue_wait the stream waits for every started one and then frees
// the engine's transfer. Nothing here waits for the stream: its operations
// take the global lock, which these calls hold. The MPI_Request handed out completes when its
// operation's round completes (the engine's completion callback), so the
// host's MPI_Wait and MPI_Test work as for any request.
#include <mpi.h>

#include <memory>
#include <new>
#include <unordered_set>
#include <vector>

#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/datatype/datatype.h"
#include "mpi/enqueue/engine.h"
#include "mpi/enqueue/stream_object.h"
#include "mpi/errhan/error.h"
#include "mpi/mpix/impl_mpix.h"
#include "mpi/request/request.h"
#include "stream/registry.h"
#include "stream/stream.h"
#include "util/error.h"

struct MPIX_Queue_s {
  MPI_Comm comm = MPI_COMM_NULL;  // the duplicate with the engine's contexts
  std::shared_ptr<stmpi::stream::Stream> stream;
  std::vector<stmpi::mpi::enqueue::Transfer*> pending;  // enqueued, not started yet
  std::vector<stmpi::mpi::enqueue::Transfer*> started;  // started, not waited for yet
};

namespace stmpi::impl {
namespace {

using mpi::enqueue::Transfer;
using mpi::enqueue::TransferArgs;

std::unordered_set<MPIX_Queue_s*>& live_queues() {
  static std::unordered_set<MPIX_Queue_s*> live;
  return live;
}

int lookup(const char* call, MPIX_Queue queue, MPIX_Queue_s** out) {
  if (queue == nullptr || live_queues().count(queue) == 0)
    return mpi::errhan::make_error(MPI_ERR_ARG,
                                   "%s: queue=%p is not a queue (freed, or not made by "
                                   "MPIX_Create_queue)",
                                   call, static_cast<void*>(queue));
  *out = queue;
  return MPI_SUCCESS;
}

// The engine's end of a round: the host request completes.
void complete_request(void* arg, int error, const MPI_Status& status) {
  mpi::Request* req = mpi::request_get(static_cast<int>(reinterpret_cast<intptr_t>(arg)));
  if (req == nullptr || req->dev.done.load(std::memory_order_relaxed)) return;
  req->status = status;
  req->status.MPI_ERROR = error;
  req->dev.done.store(true, std::memory_order_release);
}

int enqueue_op(const char* call, bool is_send, TransferArgs args, MPIX_Queue queue,
               MPI_Request* request) {
  MPIX_Queue_s* q = nullptr;
  if (int err = lookup(call, queue, &q)) return err;
  mpi::Comm* comm = mpi::comm_get(q->comm);
  const int peer = args.peer;
  if (peer != MPI_PROC_NULL && (is_send || peer != MPI_ANY_SOURCE) &&
      (peer < 0 || peer >= comm->size))
    return mpi::errhan::make_error(
        MPI_ERR_RANK, "%s: %s=%d is not a rank of queue=%p's communicator (size %d)", call,
        is_send ? "dest" : "source", peer, static_cast<void*>(queue), comm->size);
  mpi::Request* req = mpi::request_create(mpi::Request::Kind::kDone);
  mpi::status_set_empty(&req->status);
  args.on_complete = complete_request;
  args.on_complete_arg = reinterpret_cast<void*>(static_cast<intptr_t>(req->handle));
  Transfer* t = nullptr;
  const int err =
      is_send ? mpi::enqueue::send_init(args, *comm, &t) : mpi::enqueue::recv_init(args, *comm, &t);
  if (err != MPI_SUCCESS) {
    mpi::request_free(req);
    return mpi::errhan::make_error(util::error_class_of(err), "%s on queue=%p: %s", call,
                                   static_cast<void*>(queue), util::error_string(err).c_str());
  }
  q->pending.push_back(t);
  *request = req->handle;
  return MPI_SUCCESS;
}

}  // namespace

int mpix_create_queue(mpi::Comm& comm, void* stream, MPIX_Queue* queue) {
  constexpr const char* kCall = "MPIX_Create_queue";
  std::shared_ptr<stream::Stream> resolved;
  if (int err = stream::resolve(stream, &resolved))
    return mpi::errhan::make_error(util::error_class_of(err), "%s: %s", kCall,
                                   util::error_string(err).c_str());
  std::unique_ptr<MPIX_Queue_s> q(new (std::nothrow) MPIX_Queue_s);
  if (q == nullptr) return mpi::errhan::make_error(MPI_ERR_NO_MEM, "%s: out of memory", kCall);
  if (int err = mpi::enqueue::attach_engine(comm, &q->comm)) return err;
  mpi::enqueue::force_locking();
  q->stream = std::move(resolved);
  live_queues().insert(q.get());
  *queue = q.release();
  return MPI_SUCCESS;
}

int mpix_free_queue(MPIX_Queue queue) {
  constexpr const char* kCall = "MPIX_Free_queue";
  MPIX_Queue_s* q = nullptr;
  if (int err = lookup(kCall, queue, &q)) return err;
  if (!q->pending.empty() || !q->started.empty())
    return mpi::errhan::make_error(
        MPI_ERR_OTHER,
        "%s: queue=%p still has %zu operations not started and %zu not waited for (call "
        "MPIX_Enqueue_start and MPIX_Enqueue_wait, then synchronize the stream)",
        kCall, static_cast<void*>(queue), q->pending.size(), q->started.size());
  // The stream may still run the last waits: they hold the transfers (and
  // through them the communicator), never the queue.
  live_queues().erase(q);
  const int err = comm_free(&q->comm);
  delete q;
  return err;
}

int mpix_enqueue_send(const void* buf, int count, mpi::Datatype& datatype, int dest, int tag,
                      MPIX_Queue queue, MPI_Request* request) {
  TransferArgs args;
  args.send_buf = buf;
  args.count = count;
  args.type = &datatype;
  args.peer = dest;
  args.tag = tag;
  return enqueue_op("MPIX_Enqueue_send", true, args, queue, request);
}

int mpix_enqueue_recv(void* buf, int count, mpi::Datatype& datatype, int source, int tag,
                      MPIX_Queue queue, MPI_Request* request) {
  TransferArgs args;
  args.recv_buf = buf;
  args.count = count;
  args.type = &datatype;
  args.peer = source;
  args.tag = tag;
  return enqueue_op("MPIX_Enqueue_recv", false, args, queue, request);
}

int mpix_enqueue_start(MPIX_Queue queue) {
  MPIX_Queue_s* q = nullptr;
  if (int err = lookup("MPIX_Enqueue_start", queue, &q)) return err;
  if (int err = mpi::enqueue::enqueue_start_all(q->pending, *q->stream)) return err;
  q->started.insert(q->started.end(), q->pending.begin(), q->pending.end());
  q->pending.clear();
  return MPI_SUCCESS;
}

int mpix_enqueue_wait(MPIX_Queue queue) {
  MPIX_Queue_s* q = nullptr;
  if (int err = lookup("MPIX_Enqueue_wait", queue, &q)) return err;
  if (int err = mpi::enqueue::enqueue_wait_all(q->started, *q->stream, {}, /*release=*/true))
    return err;
  q->started.clear();
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
