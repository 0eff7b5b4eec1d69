// The C entry points of MPI Advance's persistent stream-triggering calls
// (include/mpis.h), written by hand: they are not MPI functions, have no
// PMPI_ names and keep the library's signatures (MPI_Count counts, an info
// argument that is not used). Each checks its arguments as the generated
// wrappers do (Call: handles, counts, ranks, tags, buffers), holds the
// global lock except MPIS_Queue_wait and MPIS_Queue_free (they wait for the
// queue's stream, whose operations take the lock), and raises errors on the
// communicator's error handler, else MPI_COMM_SELF's. The implementations
// are src/mpi/mpix/mpis.cc.
#include <mpi.h>

#include "binding/call.h"
#include "mpi/mpix/mpis.h"

using stmpi::binding::Call;
using stmpi::binding::RankKind;
using stmpi::binding::TagKind;
namespace impl = stmpi::impl;
namespace mpi = stmpi::mpi;

extern "C" {

const uintptr_t MPIS_QUEUE_NULL = 0;  // exported by its declaration in mpis.h
const MPIS_Request MPIS_REQUEST_NULL = nullptr;

STMPI_API void MPIS_Hello_world(void) {}

STMPI_API int MPIS_Queue_init(MPIS_Queue* queue, MPIS_Queue_type type, void* stream_address) {
  Call call("MPIS_Queue_init");
  call.not_null(queue, "queue");
  if (call.failed()) return call.result();
  return call.finish(impl::mpis_queue_init(queue, static_cast<int>(type), stream_address));
}

STMPI_API int MPIS_Queue_wait(MPIS_Queue queue) {
  Call call("MPIS_Queue_wait", Call::kNoLock);
  return call.finish(impl::mpis_queue_wait(queue));
}

STMPI_API int MPIS_Queue_free(MPIS_Queue* queue) {
  Call call("MPIS_Queue_free", Call::kNoLock);
  call.not_null(queue, "queue");
  if (call.failed()) return call.result();
  return call.finish(impl::mpis_queue_free(queue));
}

static int p2p_init(const char* name, bool is_send, const void* buf, MPI_Count count,
                    MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                    MPIS_Request* request) {
  Call call(name);
  mpi::Comm* comm_obj = call.comm(comm, "comm");
  mpi::Datatype* type_obj = call.datatype(datatype, "datatype", /*needs_commit=*/true);
  call.count(count, "count");
  call.rank(peer, is_send ? "dest" : "source", comm_obj,
            is_send ? RankKind::kDest : RankKind::kSource);
  call.tag(tag, "tag", is_send ? TagKind::kSend : TagKind::kRecv);
  call.not_null(request, "request");
  call.not_in_place(buf, "buf");
  call.buffer(buf, count, type_obj, "buf");
  if (call.failed()) return call.result();
  return call.finish(
      impl::mpis_p2p_init(is_send, buf, count, *type_obj, peer, tag, *comm_obj, request));
}

STMPI_API int MPIS_Send_init(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Info, MPIS_Request* request) {
  return p2p_init("MPIS_Send_init", true, buf, count, datatype, dest, tag, comm, request);
}

STMPI_API int MPIS_Rsend_init(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Info, MPIS_Request* request) {
  return p2p_init("MPIS_Rsend_init", true, buf, count, datatype, dest, tag, comm, request);
}

STMPI_API int MPIS_Recv_init(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                             MPI_Comm comm, MPI_Info, MPIS_Request* request) {
  return p2p_init("MPIS_Recv_init", false, buf, count, datatype, source, tag, comm, request);
}

STMPI_API int MPIS_Barrier_init(MPI_Comm comm, MPI_Info, MPIS_Request* request) {
  Call call("MPIS_Barrier_init");
  mpi::Comm* comm_obj = call.comm(comm, "comm");
  call.not_null(request, "request");
  if (call.failed()) return call.result();
  return call.finish(impl::mpis_barrier_init(*comm_obj, request));
}

STMPI_API int MPIS_Allreduce_init(const void* sendbuf, void* recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                                  MPIS_Request* request) {
  Call call("MPIS_Allreduce_init");
  mpi::Comm* comm_obj = call.comm(comm, "comm");
  mpi::Datatype* type_obj = call.datatype(datatype, "datatype", /*needs_commit=*/true);
  mpi::Op* op_obj = call.op(op, "op");
  call.count(count, "count");
  call.not_null(request, "request");
  call.buffer(sendbuf, count, type_obj, "sendbuf");
  call.not_in_place(recvbuf, "recvbuf");
  call.buffer(recvbuf, count, type_obj, "recvbuf");
  if (call.failed()) return call.result();
  return call.finish(
      impl::mpis_allreduce_init(sendbuf, recvbuf, count, *type_obj, *op_obj, *comm_obj, request));
}

STMPI_API int MPIS_Match(MPIS_Request* request, MPI_Status* status) {
  Call call("MPIS_Match");
  return call.finish(impl::mpis_match("MPIS_Match", request, status));
}

STMPI_API int MPIS_Queue_match(MPIS_Queue, MPIS_Request* request, MPI_Status* status) {
  Call call("MPIS_Queue_match");
  return call.finish(impl::mpis_match("MPIS_Queue_match", request, status));
}

STMPI_API int MPIS_Matchall(int count, MPIS_Request requests[], MPI_Status* statuses) {
  Call call("MPIS_Matchall");
  call.count(count, "count");
  if (count > 0) call.not_null(requests, "requests");
  if (call.failed()) return call.result();
  for (int i = 0; i < count; ++i) {
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    if (int err = impl::mpis_match("MPIS_Matchall", &requests[i], status)) return call.finish(err);
  }
  return MPI_SUCCESS;
}

STMPI_API int MPIS_Imatch(MPIS_Request* request, MPIS_Request* match_request) {
  Call call("MPIS_Imatch");
  call.not_null(match_request, "match_request");
  if (call.failed()) return call.result();
  return call.finish(impl::mpis_imatch(request, match_request));
}

STMPI_API int MPIS_Is_matched(MPIS_Request* request, int* matched) {
  Call call("MPIS_Is_matched");
  call.not_null(matched, "matched");
  if (call.failed()) return call.result();
  return call.finish(impl::mpis_is_matched(request, matched));
}

STMPI_API int MPIS_Enqueue_start(MPIS_Queue queue, MPIS_Request* request) {
  Call call("MPIS_Enqueue_start");
  return call.finish(impl::mpis_enqueue_start("MPIS_Enqueue_start", queue, request));
}

STMPI_API int MPIS_Enqueue_startall(MPIS_Queue queue, int count, MPIS_Request requests[]) {
  Call call("MPIS_Enqueue_startall");
  call.count(count, "count");
  if (count > 0) call.not_null(requests, "requests");
  if (call.failed()) return call.result();
  return call.finish(impl::mpis_enqueue_startall("MPIS_Enqueue_startall", queue, count, requests));
}

STMPI_API int MPIS_Enqueue_waitall(MPIS_Queue queue) {
  Call call("MPIS_Enqueue_waitall");
  return call.finish(impl::mpis_enqueue_waitall(queue));
}

STMPI_API int MPIS_Request_free(MPIS_Request* request) {
  Call call("MPIS_Request_free");
  call.not_null(request, "request");
  if (call.failed()) return call.result();
  return call.finish(impl::mpis_request_free("MPIS_Request_free", request));
}

STMPI_API int MPIS_Request_freeall(int count, MPIS_Request requests[]) {
  Call call("MPIS_Request_freeall");
  call.count(count, "count");
  if (count > 0) call.not_null(requests, "requests");
  if (call.failed()) return call.result();
  for (int i = 0; i < count; ++i)
    if (int err = impl::mpis_request_free("MPIS_Request_freeall", &requests[i]))
      return call.finish(err);
  return MPI_SUCCESS;
}

STMPI_API int MPIS_Wait(MPIS_Request* request, MPI_Status* status) {
  Call call("MPIS_Wait");
  call.not_null(request, "request");
  if (call.failed()) return call.result();
  return call.finish(impl::mpis_wait("MPIS_Wait", request, status));
}

STMPI_API int MPIS_Waitall(int count, MPIS_Request requests[], MPI_Status* statuses) {
  Call call("MPIS_Waitall");
  call.count(count, "count");
  if (count > 0) call.not_null(requests, "requests");
  if (call.failed()) return call.result();
  for (int i = 0; i < count; ++i) {
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    if (int err = impl::mpis_wait("MPIS_Waitall", &requests[i], status)) return call.finish(err);
  }
  return MPI_SUCCESS;
}

STMPI_API int MPIS_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return PMPI_Alloc_mem(size, info, baseptr);
}

STMPI_API int MPIS_Free_mem(void* base) { return PMPI_Free_mem(base); }

}  // extern "C"
