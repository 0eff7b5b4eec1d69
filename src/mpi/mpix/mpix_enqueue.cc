// MPICH's enqueued operations (include/mpix.h): MPIX_Send/Recv/Isend/
// Irecv_enqueue, MPIX_Wait(all)_enqueue over the enqueue engine
// (src/mpi/enqueue/engine.h), and the enqueued collectives, which start
// when the stream reaches them and complete in stream order.
//
// A request of MPIX_Isend/Irecv_enqueue is a born-complete request
// (Request::Kind::kDone) whose extra_state names the engine's transfer:
// MPIX_Wait_enqueue takes the transfer and frees the request at once.
// MPI_Wait or MPI_Test on it returns at once without waiting for the data
// (MPICH's rule: only the enqueued waits finish these requests).
#include <mpi.h>

#include <functional>
#include <vector>

#include "mpi/coll/impl_coll.h"
#include "mpi/coll/mode.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/enqueue/engine.h"
#include "mpi/enqueue/stream_object.h"
#include "mpi/errhan/error.h"
#include "mpi/init/state.h"
#include "mpi/mpix/impl_mpix.h"
#include "mpi/request/request.h"
#include "stream/staging.h"
#include "stream/stream.h"
#include "util/error.h"

namespace stmpi::impl {
namespace {

using mpi::enqueue::Transfer;
using mpi::enqueue::TransferArgs;

// The stream enqueued operations of `comm` go on, or MPIX_ERR_STREAM.
int stream_of(const char* call, const mpi::Comm& comm, stream::Stream** out) {
  const mpi::enqueue::CommStreams* streams = comm.streams.get();
  const unsigned handle = static_cast<unsigned>(comm.handle);
  if (streams == nullptr)
    return mpi::errhan::make_error(MPIX_ERR_STREAM,
                                   "%s: communicator 0x%x has no stream (make it with "
                                   "MPIX_Stream_comm_create)",
                                   call, handle);
  if (streams->multiplex)
    return mpi::errhan::make_error(MPIX_ERR_STREAM,
                                   "%s: communicator 0x%x is a multiplex stream communicator "
                                   "(enqueue needs MPIX_Stream_comm_create's single stream)",
                                   call, handle);
  const mpi::enqueue::StreamObject* object = streams->local[0];
  if (object == nullptr)
    return mpi::errhan::make_error(
        MPIX_ERR_STREAM, "%s: communicator 0x%x was made with MPIX_STREAM_NULL", call, handle);
  if (object->stream == nullptr)
    return mpi::errhan::make_error(MPIX_ERR_STREAM,
                                   "%s: stream 0x%x of communicator 0x%x has no stream to enqueue "
                                   "on (create it with info type MPIX_Host_stream, cudaStream_t "
                                   "or hipStream_t)",
                                   call, static_cast<unsigned>(object->handle), handle);
  *out = object->stream.get();
  return MPI_SUCCESS;
}

int start(const char* call, bool is_send, const TransferArgs& args, mpi::Comm& comm,
          Transfer** out) {
  stream::Stream* stream = nullptr;
  if (int err = stream_of(call, comm, &stream); err != MPI_SUCCESS) return err;
  Transfer* t = nullptr;
  int err =
      is_send ? mpi::enqueue::send_init(args, comm, &t) : mpi::enqueue::recv_init(args, comm, &t);
  if (err == MPI_SUCCESS) err = mpi::enqueue::enqueue_start(t, *stream);
  if (err != MPI_SUCCESS) {
    if (t != nullptr) mpi::enqueue::release(t);
    return err;
  }
  *out = t;
  return MPI_SUCCESS;
}

int finish_in_stream(Transfer* t, MPI_Status* status) {
  stream::Stream* stream = nullptr;
  if (int err = stream_of("MPIX_Wait_enqueue", mpi::enqueue::transfer_comm(t), &stream);
      err != MPI_SUCCESS)
    return err;
  return mpi::enqueue::enqueue_wait(t, *stream, status, /*release=*/true);
}

int hand_out(Transfer* t, MPI_Request* request) {
  mpi::Request* req = mpi::request_create(mpi::Request::Kind::kDone);
  mpi::status_set_empty(&req->status);
  req->finished = true;
  req->dev.done.store(true, std::memory_order_release);
  req->extra_state = t;
  *request = req->handle;
  return MPI_SUCCESS;
}

int take(MPI_Request* request, Transfer** out) {
  mpi::Request* req = mpi::request_get(*request);
  if (req == nullptr || req->kind != mpi::Request::Kind::kDone || req->extra_state == nullptr)
    return mpi::errhan::make_error(MPI_ERR_REQUEST,
                                   "MPIX_Wait_enqueue: request=0x%x is not a request of "
                                   "MPIX_Isend_enqueue or MPIX_Irecv_enqueue",
                                   static_cast<unsigned>(*request));
  *out = static_cast<Transfer*>(req->extra_state);
  mpi::request_free(req);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

TransferArgs send_args(const void* buf, MPI_Count count, mpi::Datatype& type, int dest, int tag) {
  TransferArgs args;
  args.send_buf = buf;
  args.count = count;
  args.type = &type;
  args.peer = dest;
  args.tag = tag;
  return args;
}

TransferArgs recv_args(void* buf, MPI_Count count, mpi::Datatype& type, int source, int tag) {
  TransferArgs args;
  args.recv_buf = buf;
  args.count = count;
  args.type = &type;
  args.peer = source;
  args.tag = tag;
  return args;
}

// An enqueued collective: started as the nonblocking form when the stream
// reaches it, then completed there. Its buffers, when they are device memory
// on a GPU stream, are staged: copied to host memory on the stream before the
// collective starts (what it reads) and back after it completed (what it
// writes).
using Begin = std::function<int(const void* sendbuf, void* recvbuf, MPI_Request*)>;

struct CollOp {
  Begin begin;
  const void* sendbuf;
  void* recvbuf;
  MPI_Request request = MPI_REQUEST_NULL;
  bool started = false;
  const char* name;
  mpi::Comm* comm;  // held until the collective completed
};

bool coll_step(void* arg) {
  auto* op = static_cast<CollOp*>(arg);
  int err = MPI_SUCCESS;
  if (!op->started) {
    op->started = true;
    err = op->begin(op->sendbuf, op->recvbuf, &op->request);
  }
  if (err == MPI_SUCCESS && op->request != MPI_REQUEST_NULL) {
    mpi::Request* req = mpi::request_get(op->request);
    if (!mpi::request_test(req)) return false;
    err = mpi::request_retire(req, MPI_STATUS_IGNORE);
  }
  if (err != MPI_SUCCESS)
    std::fprintf(stderr, "STMPI: %s failed on its stream: %s\n", op->name,
                 util::error_string(err).c_str());
  mpi::comm_release(op->comm);
  delete op;
  return true;
}

// A collective's two buffers: what it reads (send; or recv with recv_read,
// MPI_IN_PLACE) and what it writes (recv). A null buffer is not touched
// (a root-only buffer elsewhere).
struct CollBuffers {
  const void* send = nullptr;
  MPI_Count send_count = 0;
  const mpi::Datatype* send_type = nullptr;
  void* recv = nullptr;
  MPI_Count recv_count = 0;
  const mpi::Datatype* recv_type = nullptr;
  bool recv_read = false;
};

int enqueue_coll(const char* name, mpi::Comm& comm, const CollBuffers& bufs, Begin begin) {
  stream::Stream* stream = nullptr;
  if (int err = stream_of(name, comm, &stream); err != MPI_SUCCESS) return err;
  const bool in_place = bufs.send == MPI_IN_PLACE;
  stream::Staged send, recv;
  auto* op =
      new CollOp{std::move(begin), bufs.send, bufs.recv, MPI_REQUEST_NULL, false, name, &comm};
  mpi::comm_retain(&comm);
  int err = MPI_SUCCESS;
  bool launched = false;
  {
    // Staging and launches onto a GPU stream without the MPI lock (engine.cc).
    mpi::GlobalUnlockScope unlocked(stream->backend() != stream::BackendKind::kHost);
    if (!in_place && bufs.send != nullptr)
      err = mpi::enqueue::stage_buffer(*stream, bufs.send, bufs.send_count, *bufs.send_type, &send);
    if (err == MPI_SUCCESS && bufs.recv != nullptr)
      err = mpi::enqueue::stage_buffer(*stream, bufs.recv, bufs.recv_count, *bufs.recv_type, &recv);
    if (err == MPI_SUCCESS) err = stream::copy_in(*stream, send);
    // A receive buffer with gaps keeps them: copied in too.
    if (err == MPI_SUCCESS && recv && (in_place || bufs.recv_read || !bufs.recv_type->contiguous))
      err = stream::copy_in(*stream, recv);
    if (!in_place) op->sendbuf = send.host_address(bufs.send);
    op->recvbuf = recv.host_address(bufs.recv);
    if (err == MPI_SUCCESS) err = mpi::enqueue::enqueue_locked(*stream, coll_step, op);
    launched = err == MPI_SUCCESS;
    if (launched) {
      err = stream::copy_out(*stream, recv);
      const int release_err = mpi::enqueue::release_later(*stream, {send, recv});
      if (err == MPI_SUCCESS) err = release_err;
    } else {
      stream::release_now(send);
      stream::release_now(recv);
    }
  }
  if (!launched) {
    mpi::comm_release(&comm);
    delete op;
  }
  return err;
}

constexpr auto kNb = mpi::coll::Mode::kNonblocking;

}  // namespace

int mpix_send_enqueue_c(const void* buf, MPI_Count count, mpi::Datatype& datatype, int dest,
                        int tag, mpi::Comm& comm) {
  Transfer* t = nullptr;
  if (int err =
          start("MPIX_Send_enqueue", true, send_args(buf, count, datatype, dest, tag), comm, &t);
      err != MPI_SUCCESS)
    return err;
  return finish_in_stream(t, MPI_STATUS_IGNORE);
}

int mpix_recv_enqueue_c(void* buf, MPI_Count count, mpi::Datatype& datatype, int source, int tag,
                        mpi::Comm& comm, MPI_Status* status) {
  Transfer* t = nullptr;
  if (int err =
          start("MPIX_Recv_enqueue", false, recv_args(buf, count, datatype, source, tag), comm, &t);
      err != MPI_SUCCESS)
    return err;
  return finish_in_stream(t, status);
}

int mpix_isend_enqueue_c(const void* buf, MPI_Count count, mpi::Datatype& datatype, int dest,
                         int tag, mpi::Comm& comm, MPI_Request* request) {
  Transfer* t = nullptr;
  if (int err =
          start("MPIX_Isend_enqueue", true, send_args(buf, count, datatype, dest, tag), comm, &t);
      err != MPI_SUCCESS)
    return err;
  return hand_out(t, request);
}

int mpix_irecv_enqueue_c(void* buf, MPI_Count count, mpi::Datatype& datatype, int source, int tag,
                         mpi::Comm& comm, MPI_Request* request) {
  Transfer* t = nullptr;
  if (int err = start("MPIX_Irecv_enqueue", false, recv_args(buf, count, datatype, source, tag),
                      comm, &t);
      err != MPI_SUCCESS)
    return err;
  return hand_out(t, request);
}

int mpix_send_enqueue(const void* buf, int count, mpi::Datatype& datatype, int dest, int tag,
                      mpi::Comm& comm) {
  return mpix_send_enqueue_c(buf, count, datatype, dest, tag, comm);
}
int mpix_recv_enqueue(void* buf, int count, mpi::Datatype& datatype, int source, int tag,
                      mpi::Comm& comm, MPI_Status* status) {
  return mpix_recv_enqueue_c(buf, count, datatype, source, tag, comm, status);
}
int mpix_isend_enqueue(const void* buf, int count, mpi::Datatype& datatype, int dest, int tag,
                       mpi::Comm& comm, MPI_Request* request) {
  return mpix_isend_enqueue_c(buf, count, datatype, dest, tag, comm, request);
}
int mpix_irecv_enqueue(void* buf, int count, mpi::Datatype& datatype, int source, int tag,
                       mpi::Comm& comm, MPI_Request* request) {
  return mpix_irecv_enqueue_c(buf, count, datatype, source, tag, comm, request);
}

int mpix_wait_enqueue(MPI_Request* request, MPI_Status* status) {
  if (*request == MPI_REQUEST_NULL) return MPI_SUCCESS;
  Transfer* t = nullptr;
  if (int err = take(request, &t); err != MPI_SUCCESS) return err;
  return finish_in_stream(t, status);
}

int mpix_waitall_enqueue(int count, MPI_Request array_of_requests[],
                         MPI_Status array_of_statuses[]) {
  // Consecutive requests on the same stream become one stream operation.
  std::vector<Transfer*> run;
  std::vector<MPI_Status*> statuses;
  stream::Stream* run_stream = nullptr;
  auto flush_run = [&] {
    const int err =
        run.empty() ? MPI_SUCCESS
                    : mpi::enqueue::enqueue_wait_all(run, *run_stream, statuses, /*release=*/true);
    run.clear();
    statuses.clear();
    return err;
  };
  for (int i = 0; i < count; ++i) {
    if (array_of_requests[i] == MPI_REQUEST_NULL) continue;
    Transfer* t = nullptr;
    stream::Stream* stream = nullptr;
    if (int err = take(&array_of_requests[i], &t); err != MPI_SUCCESS) {
      (void)flush_run();
      return err;
    }
    if (int err = stream_of("MPIX_Waitall_enqueue", mpi::enqueue::transfer_comm(t), &stream);
        err != MPI_SUCCESS) {
      (void)flush_run();
      return err;
    }
    if (stream != run_stream)
      if (int err = flush_run(); err != MPI_SUCCESS) return err;
    run_stream = stream;
    run.push_back(t);
    statuses.push_back(array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                : &array_of_statuses[i]);
  }
  return flush_run();
}

int mpix_allreduce_enqueue_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                             mpi::Datatype& datatype, mpi::Op& op, mpi::Comm& comm) {
  return enqueue_coll("MPIX_Allreduce_enqueue", comm,
                      {sendbuf, count, &datatype, recvbuf, count, &datatype},
                      [=, &datatype, &op, &comm](const void* s, void* r, MPI_Request* req) {
                        return allreduce_any(s, r, count, datatype, op, comm, kNb, req);
                      });
}
int mpix_bcast_enqueue_c(void* buffer, MPI_Count count, mpi::Datatype& datatype, int root,
                         mpi::Comm& comm) {
  // The root's buffer is read, the others' written.
  const bool is_root = root == comm.rank;
  CollBuffers bufs;
  if (is_root) bufs = {buffer, count, &datatype};
  else bufs = {nullptr, 0, nullptr, buffer, count, &datatype};
  return enqueue_coll("MPIX_Bcast_enqueue", comm, bufs,
                      [=, &datatype, &comm](const void* s, void* r, MPI_Request* req) {
                        return bcast_any(is_root ? const_cast<void*>(s) : r, count, datatype, root,
                                         comm, kNb, req);
                      });
}
int mpix_reduce_enqueue_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                          mpi::Datatype& datatype, mpi::Op& op, int root, mpi::Comm& comm) {
  // recvbuf is the root's only.
  const bool is_root = root == comm.rank;
  return enqueue_coll("MPIX_Reduce_enqueue", comm,
                      {sendbuf, count, &datatype, is_root ? recvbuf : nullptr, count, &datatype},
                      [=, &datatype, &op, &comm](const void* s, void* r, MPI_Request* req) {
                        return reduce_any(s, is_root ? r : recvbuf, count, datatype, op, root, comm,
                                          kNb, req);
                      });
}
int mpix_allgather_enqueue_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype& sendtype,
                             void* recvbuf, MPI_Count recvcount, mpi::Datatype& recvtype,
                             mpi::Comm& comm) {
  return enqueue_coll(
      "MPIX_Allgather_enqueue", comm,
      {sendbuf, sendcount, &sendtype, recvbuf, recvcount * comm.peer_size(), &recvtype},
      [=, &sendtype, &recvtype, &comm](const void* s, void* r, MPI_Request* req) {
        return allgather_any(s, sendcount, &sendtype, r, recvcount, recvtype, comm, kNb, req);
      });
}
int mpix_alltoall_enqueue_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype& sendtype,
                            void* recvbuf, MPI_Count recvcount, mpi::Datatype& recvtype,
                            mpi::Comm& comm) {
  return enqueue_coll("MPIX_Alltoall_enqueue", comm,
                      {sendbuf, sendcount * comm.peer_size(), &sendtype, recvbuf,
                       recvcount * comm.peer_size(), &recvtype},
                      [=, &sendtype, &recvtype, &comm](const void* s, void* r, MPI_Request* req) {
                        return alltoall_any(s, sendcount, &sendtype, r, recvcount, recvtype, comm,
                                            kNb, req);
                      });
}
int mpix_barrier_enqueue(mpi::Comm& comm) {
  return enqueue_coll(
      "MPIX_Barrier_enqueue", comm, {},
      [&comm](const void*, void*, MPI_Request* req) { return barrier_any(comm, kNb, req); });
}

int mpix_allreduce_enqueue(const void* sendbuf, void* recvbuf, int count, mpi::Datatype& datatype,
                           mpi::Op& op, mpi::Comm& comm) {
  return mpix_allreduce_enqueue_c(sendbuf, recvbuf, count, datatype, op, comm);
}
int mpix_bcast_enqueue(void* buffer, int count, mpi::Datatype& datatype, int root,
                       mpi::Comm& comm) {
  return mpix_bcast_enqueue_c(buffer, count, datatype, root, comm);
}
int mpix_reduce_enqueue(const void* sendbuf, void* recvbuf, int count, mpi::Datatype& datatype,
                        mpi::Op& op, int root, mpi::Comm& comm) {
  return mpix_reduce_enqueue_c(sendbuf, recvbuf, count, datatype, op, root, comm);
}
int mpix_allgather_enqueue(const void* sendbuf, int sendcount, mpi::Datatype& sendtype,
                           void* recvbuf, int recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  return mpix_allgather_enqueue_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int mpix_alltoall_enqueue(const void* sendbuf, int sendcount, mpi::Datatype& sendtype,
                          void* recvbuf, int recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  return mpix_alltoall_enqueue_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

}  // namespace stmpi::impl
