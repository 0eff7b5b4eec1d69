// MPI point-to-point calls: blocking, nonblocking and persistent sends and
// receives, Sendrecv and its variants. Arguments were checked by the
// bindings; `_c` variants share the same code through MPI_Count.
#include <cstring>
#include <vector>

#include "mpi/coll/sched/engine.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/part/part.h"
#include "mpi/pt2pt/bsend.h"
#include "mpi/pt2pt/impl_pt2pt.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/impl_request.h"
#include "mpi/request/request.h"

namespace stmpi::impl {
namespace {

using dev::SendMode;
using mpi::Request;

}  // namespace

int blocking_send(const void* buf, MPI_Count count, mpi::Datatype& type, int dest, int tag,
                  mpi::Comm& comm, SendMode mode) {
  if (mode == SendMode::kBuffered)
    return mpi::bsend::send(buf, count, type, dest, tag, comm, nullptr);
  return mpi::pt2pt::send(buf, count, type, dest, tag, comm, comm.context_id, mode);
}

int nonblocking_send(const void* buf, MPI_Count count, mpi::Datatype& type, int dest, int tag,
                     mpi::Comm& comm, SendMode mode, MPI_Request* request) {
  Request* req = nullptr;
  const int err =
      mode == SendMode::kBuffered
          ? mpi::bsend::send(buf, count, type, dest, tag, comm, &req)
          : mpi::pt2pt::isend(buf, count, type, dest, tag, comm, comm.context_id, mode, &req);
  if (err != MPI_SUCCESS) return err;
  *request = req->handle;
  return MPI_SUCCESS;
}

int persistent_send(const void* buf, MPI_Count count, mpi::Datatype& type, int dest, int tag,
                    mpi::Comm& comm, SendMode mode, MPI_Request* request) {
  Request* req = mpi::request_create(Request::Kind::kPrequestSend);
  req->persistent = {buf, count, &type, dest, tag, static_cast<int>(mode)};
  mpi::datatype_retain(&type);
  req->comm = &comm;
  mpi::comm_retain(&comm);
  *request = req->handle;
  return MPI_SUCCESS;
}

int recv_any(void* buf, MPI_Count count, mpi::Datatype& type, int source, int tag, mpi::Comm& comm,
             MPI_Status* status) {
  return mpi::pt2pt::recv(buf, count, type, source, tag, comm, comm.context_id, status);
}

int irecv_any(void* buf, MPI_Count count, mpi::Datatype& type, int source, int tag, mpi::Comm& comm,
              MPI_Request* request) {
  Request* req = nullptr;
  if (int err = mpi::pt2pt::irecv(buf, count, type, source, tag, comm, comm.context_id, &req);
      err != MPI_SUCCESS)
    return err;
  *request = req->handle;
  return MPI_SUCCESS;
}

int recv_init_any(void* buf, MPI_Count count, mpi::Datatype& type, int source, int tag,
                  mpi::Comm& comm, MPI_Request* request) {
  Request* req = mpi::request_create(Request::Kind::kPrequestRecv);
  req->persistent = {buf, count, &type, source, tag, 0};
  mpi::datatype_retain(&type);
  req->comm = &comm;
  mpi::comm_retain(&comm);
  *request = req->handle;
  return MPI_SUCCESS;
}

// Isendrecv: a compound request of [send, receive].
int isendrecv_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype& sendtype, int dest,
                  int sendtag, void* recvbuf, MPI_Count recvcount, mpi::Datatype& recvtype,
                  int source, int recvtag, mpi::Comm& comm, MPI_Request* request) {
  Request* rreq = nullptr;
  Request* sreq = nullptr;
  if (int err = mpi::pt2pt::irecv(recvbuf, recvcount, recvtype, source, recvtag, comm,
                                  comm.context_id, &rreq);
      err != MPI_SUCCESS)
    return err;
  if (int err = mpi::pt2pt::isend(sendbuf, sendcount, sendtype, dest, sendtag, comm,
                                  comm.context_id, SendMode::kStandard, &sreq);
      err != MPI_SUCCESS) {
    mpi::request_detach(rreq);
    return err;
  }
  Request* req = mpi::request_create(Request::Kind::kCompound);
  req->parts = {sreq, rreq};
  *request = req->handle;
  return MPI_SUCCESS;
}

// Sendrecv_replace: receive into a scratch buffer, then copy over the data.
int sendrecv_replace_any(void* buf, MPI_Count count, mpi::Datatype& type, int dest, int sendtag,
                         int source, int recvtag, mpi::Comm& comm, MPI_Status* status) {
  const auto bytes = static_cast<std::size_t>(count * type.size);
  std::vector<char> packed(bytes);
  if (bytes != 0) type.pack(buf, count, packed.data());
  mpi::Datatype& byte_type = *mpi::datatype_get(MPI_BYTE);
  std::vector<char> incoming(bytes);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int err = mpi::pt2pt::sendrecv(
      packed.data(), static_cast<MPI_Count>(bytes), byte_type, dest, sendtag, incoming.data(),
      static_cast<MPI_Count>(bytes), byte_type, source, recvtag, comm, comm.context_id, st);
  const MPI_Count got = mpi::status_bytes(st);
  if (got != 0) type.unpack(incoming.data(), got, count, buf);
  return err;
}

int start(MPI_Request* request) {
  Request* req = mpi::request_get(*request);
  if (req == nullptr || !mpi::request_is_persistent(req))
    return mpi::errhan::make_error(MPI_ERR_REQUEST, "request=0x%x is not a persistent request",
                                   static_cast<unsigned>(*request));
  if (req->persistent_active)
    return mpi::errhan::make_error(MPI_ERR_REQUEST, "request=0x%x is already active",
                                   static_cast<unsigned>(*request));
  if (req->kind == Request::Kind::kPrequestColl) {  // replays the collective's schedule
    req->persistent_active = true;
    mpi::coll::engine_start(req);
    return MPI_SUCCESS;
  }
  const Request::Persistent& p = req->persistent;
  mpi::status_set_empty(&req->status);
  req->persistent_active = true;
  if (req->partitions > 0) return mpi::part::start(req);
  if (req->kind == Request::Kind::kPrequestRecv)
    return mpi::pt2pt::start_recv(req, const_cast<void*>(p.buf), p.count, *p.type, p.peer, p.tag,
                                  *req->comm, req->comm->context_id);
  const auto mode = static_cast<SendMode>(p.mode);
  if (mode == SendMode::kBuffered) {
    // A buffered persistent send copies at each start and completes at once.
    const int err = mpi::bsend::send(p.buf, p.count, *p.type, p.peer, p.tag, *req->comm, nullptr);
    req->finished = false;
    req->dev.done.store(true, std::memory_order_relaxed);
    return err;
  }
  return mpi::pt2pt::start_send(req, p.buf, p.count, *p.type, p.peer, p.tag, *req->comm,
                                req->comm->context_id, mode);
}

int startall(int count, MPI_Request array_of_requests[]) {
  if (count < 0)
    return mpi::errhan::make_error(MPI_ERR_COUNT, "count=%d must be non-negative", count);
  for (int i = 0; i < count; ++i)
    if (int err = start(&array_of_requests[i]); err != MPI_SUCCESS) return err;
  return MPI_SUCCESS;
}

int sendrecv_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype& sendtype, int dest,
                 int sendtag, void* recvbuf, MPI_Count recvcount, mpi::Datatype& recvtype,
                 int source, int recvtag, mpi::Comm& comm, MPI_Status* status) {
  return mpi::pt2pt::sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                              recvtype, source, recvtag, comm, comm.context_id, status);
}

// Isendrecv_replace: the outgoing data is packed first, so the receive may
// land in the user's buffer while the send is still in flight.
int isendrecv_replace_any(void* buf, MPI_Count count, mpi::Datatype& datatype, int dest,
                          int sendtag, int source, int recvtag, mpi::Comm& comm,
                          MPI_Request* request) {
  const auto bytes = static_cast<std::size_t>(count * datatype.size);
  Request* sreq = mpi::request_create(Request::Kind::kSend);
  sreq->staging.resize(bytes);
  if (bytes != 0) datatype.pack(buf, count, sreq->staging.data());
  mpi::Datatype& byte_type = *mpi::datatype_get(MPI_BYTE);
  std::vector<char> packed = std::move(sreq->staging);
  if (int err =
          mpi::pt2pt::start_send(sreq, packed.data(), static_cast<MPI_Count>(bytes), byte_type,
                                 dest, sendtag, comm, comm.context_id, SendMode::kStandard);
      err != MPI_SUCCESS) {
    mpi::request_free(sreq);
    return err;
  }
  sreq->staging = std::move(packed);  // keeps the bytes alive; a vector move keeps its storage
  Request* rreq = nullptr;
  if (int err =
          mpi::pt2pt::irecv(buf, count, datatype, source, recvtag, comm, comm.context_id, &rreq);
      err != MPI_SUCCESS) {
    mpi::request_detach(sreq);
    return err;
  }
  Request* req = mpi::request_create(Request::Kind::kCompound);
  req->parts = {sreq, rreq};
  *request = req->handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
