// MPI_Probe/Iprobe and matched probes (MPI_Mprobe/Improbe/Mrecv/Imrecv).
// A matched probe removes the message from matching and parks it in a
// message handle (a request of kind kMessage, as MPICH's ABI has it).
#include "device/device.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/init/state.h"
#include "mpi/pt2pt/impl_pt2pt.h"
#include "mpi/request/request.h"
#include "util/backoff.h"

namespace stmpi::impl {
namespace {

using mpi::Request;

void fill_probe_status(MPI_Status* status, const dev::ProbeInfo& info) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = info.source;
  status->MPI_TAG = info.tag;
  mpi::status_set_bytes(status, static_cast<MPI_Count>(info.bytes));
  mpi::status_set_cancelled(status, false);
}

void fill_proc_null_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  mpi::status_set_empty_keep_error(status);
  status->MPI_SOURCE = MPI_PROC_NULL;
}

bool try_probe(int source, int tag, mpi::Comm& comm, MPI_Status* status) {
  dev::ProbeInfo info;
  const dev::match::Key pattern{comm.context_id, source, tag};
  if (!dev::iprobe(pattern, &info)) {
    dev::progress();
    if (!dev::iprobe(pattern, &info)) return false;
  }
  fill_probe_status(status, info);
  return true;
}

bool try_mprobe(int source, int tag, mpi::Comm& comm, MPI_Message* message, MPI_Status* status) {
  dev::ProbeInfo info;
  const dev::match::Key pattern{comm.context_id, source, tag};
  dev::UnexpectedMessage* msg = dev::improbe(pattern, &info);
  if (msg == nullptr) {
    dev::progress();
    msg = dev::improbe(pattern, &info);
    if (msg == nullptr) return false;
  }
  Request* req = mpi::request_create(Request::Kind::kMessage);
  req->message = msg;
  req->comm = &comm;
  mpi::comm_retain(&comm);
  *message = req->handle;
  fill_probe_status(status, info);
  return true;
}

// Turns a message handle into a started receive request.
int start_mrecv(void* buf, MPI_Count count, mpi::Datatype& type, MPI_Message* message,
                Request** out) {
  if (*message == MPI_MESSAGE_NO_PROC) {
    Request* req = mpi::request_create(Request::Kind::kDone);
    mpi::status_set_empty(&req->status);
    req->status.MPI_SOURCE = MPI_PROC_NULL;
    req->dev.done.store(true, std::memory_order_relaxed);
    *message = MPI_MESSAGE_NULL;
    *out = req;
    return MPI_SUCCESS;
  }
  Request* msg = mpi::request_get(*message);
  if (msg == nullptr || msg->kind != Request::Kind::kMessage)
    return mpi::errhan::make_error(MPI_ERR_REQUEST, "message=0x%x is not a matched message",
                                   static_cast<unsigned>(*message));
  Request* req = mpi::request_create(Request::Kind::kRecv);
  const auto capacity = static_cast<std::size_t>(count * type.size);
  void* data = static_cast<char*>(buf) + type.true_lb;
  if (!type.contiguous && capacity != 0) {
    req->staging.resize(capacity);
    req->user_buf = buf;
    req->user_count = count;
    req->user_type = &type;
    mpi::datatype_retain(&type);
    data = req->staging.data();
  }
  const int err = dev::imrecv(msg->message, data, capacity, &req->dev);
  msg->message = nullptr;
  mpi::request_free(msg);
  *message = MPI_MESSAGE_NULL;
  *out = req;
  return err;
}

}  // namespace

int iprobe(int source, int tag, mpi::Comm& comm, int* flag, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    fill_proc_null_status(status);
    *flag = 1;
    return MPI_SUCCESS;
  }
  *flag = try_probe(source, tag, comm, status);
  return MPI_SUCCESS;
}

int probe(int source, int tag, mpi::Comm& comm, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    fill_proc_null_status(status);
    return MPI_SUCCESS;
  }
  util::Backoff backoff;
  while (!try_probe(source, tag, comm, status)) backoff.step();
  return MPI_SUCCESS;
}

int improbe(int source, int tag, mpi::Comm& comm, int* flag, MPI_Message* message,
            MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    fill_proc_null_status(status);
    *message = MPI_MESSAGE_NO_PROC;
    *flag = 1;
    return MPI_SUCCESS;
  }
  *flag = try_mprobe(source, tag, comm, message, status);
  return MPI_SUCCESS;
}

int mprobe(int source, int tag, mpi::Comm& comm, MPI_Message* message, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    fill_proc_null_status(status);
    *message = MPI_MESSAGE_NO_PROC;
    return MPI_SUCCESS;
  }
  util::Backoff backoff;
  while (!try_mprobe(source, tag, comm, message, status)) backoff.step();
  return MPI_SUCCESS;
}

int mrecv_any(void* buf, MPI_Count count, mpi::Datatype& type, MPI_Message* message,
              MPI_Status* status) {
  Request* req = nullptr;
  if (int err = start_mrecv(buf, count, type, message, &req); err != MPI_SUCCESS) return err;
  mpi::request_wait(req);
  return mpi::request_retire(req, status);
}

int imrecv_any(void* buf, MPI_Count count, mpi::Datatype& type, MPI_Message* message,
               MPI_Request* request) {
  Request* req = nullptr;
  if (int err = start_mrecv(buf, count, type, message, &req); err != MPI_SUCCESS) return err;
  *request = req->handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
