#include <cstring>

#include "device/device.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::pt2pt {
namespace {

void complete_proc_null(Request* req) {
  status_set_empty(&req->status);
  req->status.MPI_SOURCE = MPI_PROC_NULL;
  req->finished = true;  // the status above is final
  req->dev.done.store(true, std::memory_order_relaxed);
}

}  // namespace

// The request keeps its communicator: errors found at completion go to the
// communicator's error handler.
void hold_comm(Request* req, Comm& comm) {
  if (req->comm != nullptr) return;
  req->comm = &comm;
  comm_retain(&comm);
}

int start_send(Request* req, const void* buf, MPI_Count count, Datatype& type, int peer, int tag,
               Comm& comm, uint32_t context, dev::SendMode mode) {
  req->finished = false;
  hold_comm(req, comm);
  if (peer == MPI_PROC_NULL) {
    complete_proc_null(req);
    return MPI_SUCCESS;
  }
  const auto bytes = static_cast<std::size_t>(count * type.size);
  const void* data = static_cast<const char*>(buf) + type.true_lb;
  if (!type.contiguous && bytes != 0) {
    req->staging.resize(bytes);
    type.pack(buf, count, req->staging.data());
    data = req->staging.data();
  }
  return dev::isend(data, bytes, comm.world_rank(peer), dev::match::Key{context, comm.rank, tag},
                    mode, &req->dev);
}

int start_recv(Request* req, void* buf, MPI_Count count, Datatype& type, int peer, int tag,
               Comm& comm, uint32_t context) {
  req->finished = false;
  hold_comm(req, comm);
  if (peer == MPI_PROC_NULL) {
    complete_proc_null(req);
    return MPI_SUCCESS;
  }
  const auto capacity = static_cast<std::size_t>(count * type.size);
  void* data = static_cast<char*>(buf) + type.true_lb;
  req->user_type = nullptr;
  if (!type.contiguous && capacity != 0) {
    req->staging.resize(capacity);
    req->user_buf = buf;
    req->user_count = count;
    req->user_type = &type;
    datatype_retain(&type);  // the user may free the type while the receive is pending
    data = req->staging.data();
  }
  return dev::irecv(data, capacity, dev::match::Key{context, peer, tag}, &req->dev);
}

int isend(const void* buf, MPI_Count count, Datatype& type, int dest, int tag, Comm& comm,
          uint32_t context, dev::SendMode mode, Request** out) {
  Request* req = request_create(Request::Kind::kSend);
  if (int err = start_send(req, buf, count, type, dest, tag, comm, context, mode);
      err != MPI_SUCCESS) {
    request_free(req);
    return err;
  }
  *out = req;
  return MPI_SUCCESS;
}

int irecv(void* buf, MPI_Count count, Datatype& type, int source, int tag, Comm& comm,
          uint32_t context, Request** out) {
  Request* req = request_create(Request::Kind::kRecv);
  if (int err = start_recv(req, buf, count, type, source, tag, comm, context); err != MPI_SUCCESS) {
    request_free(req);
    return err;
  }
  *out = req;
  return MPI_SUCCESS;
}

int send(const void* buf, MPI_Count count, Datatype& type, int dest, int tag, Comm& comm,
         uint32_t context, dev::SendMode mode) {
  Request* req = nullptr;
  if (int err = isend(buf, count, type, dest, tag, comm, context, mode, &req); err != MPI_SUCCESS)
    return err;
  request_wait(req);
  return request_retire(req, MPI_STATUS_IGNORE);
}

int recv(void* buf, MPI_Count count, Datatype& type, int source, int tag, Comm& comm,
         uint32_t context, MPI_Status* status) {
  Request* req = nullptr;
  if (int err = irecv(buf, count, type, source, tag, comm, context, &req); err != MPI_SUCCESS)
    return err;
  request_wait(req);
  return request_retire(req, status);
}

int sendrecv(const void* sendbuf, MPI_Count sendcount, Datatype& sendtype, int dest, int sendtag,
             void* recvbuf, MPI_Count recvcount, Datatype& recvtype, int source, int recvtag,
             Comm& comm, uint32_t context, MPI_Status* status) {
  Request* rreq = nullptr;
  Request* sreq = nullptr;
  if (int err = irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, context, &rreq);
      err != MPI_SUCCESS)
    return err;
  if (int err = isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, context,
                      dev::SendMode::kStandard, &sreq);
      err != MPI_SUCCESS) {
    request_wait(rreq);
    (void)request_retire(rreq, MPI_STATUS_IGNORE);
    return err;
  }
  request_wait(sreq);
  request_wait(rreq);
  const int send_err = request_retire(sreq, MPI_STATUS_IGNORE);
  const int recv_err = request_retire(rreq, status);
  return recv_err != MPI_SUCCESS ? recv_err : send_err;
}

int wait_all(int n, Request* const* reqs) {
  int first_error = MPI_SUCCESS;
  for (int i = 0; i < n; ++i) {
    request_wait(reqs[i]);
    const int err = request_retire(reqs[i], MPI_STATUS_IGNORE);
    if (first_error == MPI_SUCCESS) first_error = err;
  }
  return first_error;
}

}  // namespace stmpi::mpi::pt2pt
