#include "mpi/request/request.h"

#include <cstring>
#include <mutex>
#include <new>

#include "device/device.h"
#include "device/progress.h"
#include "mpi/coll/sched/engine.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/init/state.h"

namespace stmpi::mpi {

constinit HandleTable<Request, ObjectKind::kRequest> g_request_table;

namespace {

std::vector<Request*> g_detached;
int g_reap_hook = -1;  // progress hook reaping g_detached while it is not empty
// Freed requests are kept for reuse: a send or receive then costs no heap
// allocation once the pool has warmed up.
std::vector<Request*> g_pool;
constexpr std::size_t kPoolLimit = 1024;

// The failed requests of this thread's current completion call
// (request_note_failure): whether one failed, and the file they share.
struct Failures {
  bool any = false;
  MPI_File file = MPI_FILE_NULL;
};
thread_local Failures t_failures;

void finish(Request* req) {
  MPI_Status& status = req->status;
  switch (req->kind) {
    case Request::Kind::kRecv:
    case Request::Kind::kPrequestRecv: {
      const dev::RequestDev& dev = req->dev;
      status.MPI_SOURCE = dev.msg_source;
      status.MPI_TAG = dev.msg_tag;
      status.MPI_ERROR = MPI_SUCCESS;
      if (dev.truncated)
        status.MPI_ERROR = errhan::make_error(
            MPI_ERR_TRUNCATE,
            "message from rank %d with tag %d has %zu bytes; the receive buffer holds %zu",
            dev.msg_source, dev.msg_tag, dev.msg_total, dev.recv_capacity);
      else if (dev.failed)
        status.MPI_ERROR = errhan::make_error(MPI_ERR_OTHER, "single-copy read from rank %d failed",
                                              dev.msg_source);
      if (req->partitions > 0) status.MPI_TAG = req->persistent.tag;  // see src/mpi/part
      status_set_bytes(&status, static_cast<MPI_Count>(dev.msg_bytes));
      status_set_cancelled(&status, false);
      if (req->user_type != nullptr) {  // staged noncontiguous receive
        req->user_type->unpack(req->staging.data(), static_cast<MPI_Count>(dev.msg_bytes),
                               req->user_count, req->user_buf);
        datatype_release(req->user_type);
        req->user_type = nullptr;
      }
      break;
    }
    case Request::Kind::kSend:
    case Request::Kind::kPrequestSend:
      status.MPI_ERROR = MPI_SUCCESS;
      status_set_cancelled(&status, req->dev.cancelled);
      break;
    case Request::Kind::kCompound: status = req->parts[1]->status; break;
    case Request::Kind::kGeneralized:
      // The query function's return value is the request's error: the
      // completing call returns it (MPI 4.1 13.2).
      if (req->query_fn != nullptr) status.MPI_ERROR = grequest_call_query(req, &status);
      break;
    case Request::Kind::kMessage:
    case Request::Kind::kDone:
    case Request::Kind::kColl:  // the engine set MPI_ERROR at completion
    case Request::Kind::kPrequestColl: break;
  }
}

}  // namespace

namespace {

// The Fortran forms of the callbacks (MPI 4.1 section 13.2): extra_state is
// passed as the binding gave it, the status is an INTEGER array laid out as
// MPI_Status, the error code comes back in the last argument.
using FortranQuery = void(void* extra_state, MPI_Fint* status, MPI_Fint* ierr);
using FortranFree = void(void* extra_state, MPI_Fint* ierr);
using FortranCancel = void(void* extra_state, MPI_Fint* complete, MPI_Fint* ierr);
static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0);

// The callback the binding stored, as the Fortran subroutine it is (through
// void (*)(), which marks the cast as intended).
template <class To, class From>
To* fortran_callback(From* fn) {
  return reinterpret_cast<To*>(reinterpret_cast<void (*)()>(fn));
}

}  // namespace

int grequest_call_query(Request* req, MPI_Status* status) {
  if (req->query_fn == nullptr) return MPI_SUCCESS;
  if (!req->fortran_callbacks) return req->query_fn(req->extra_state, status);
  MPI_Fint ierr = MPI_SUCCESS;
  MPI_Fint fstatus[sizeof(MPI_Status) / sizeof(MPI_Fint)];
  std::memcpy(fstatus, status, sizeof(MPI_Status));
  fortran_callback<FortranQuery>(req->query_fn)(req->extra_state, fstatus, &ierr);
  std::memcpy(status, fstatus, sizeof(MPI_Status));
  return ierr;
}

int grequest_call_free(Request* req) {
  if (req->free_fn == nullptr) return MPI_SUCCESS;
  if (!req->fortran_callbacks) return req->free_fn(req->extra_state);
  MPI_Fint ierr = MPI_SUCCESS;
  fortran_callback<FortranFree>(req->free_fn)(req->extra_state, &ierr);
  return ierr;
}

int grequest_call_cancel(Request* req, bool complete) {
  if (req->cancel_fn == nullptr) return MPI_SUCCESS;
  if (!req->fortran_callbacks) return req->cancel_fn(req->extra_state, complete ? 1 : 0);
  MPI_Fint ierr = MPI_SUCCESS;
  MPI_Fint fcomplete = complete ? 1 : 0;
  fortran_callback<FortranCancel>(req->cancel_fn)(req->extra_state, &fcomplete, &ierr);
  return ierr;
}

Request* request_create(Request::Kind kind) {
  Request* req;
  if (!g_pool.empty()) {
    req = g_pool.back();
    g_pool.pop_back();
    new (req) Request;
  } else {
    req = static_cast<Request*>(::operator new(sizeof(Request)));
    new (req) Request;
  }
  req->kind = kind;
  req->handle = g_request_table.add(req);
  status_set_empty(&req->status);
  return req;
}

void request_free(Request* req) {
  if (req->kind == Request::Kind::kGeneralized && req->free_fn != nullptr)
    (void)grequest_call_free(req);
  if (req->user_type != nullptr) datatype_release(req->user_type);
  if (req->persistent.type != nullptr) datatype_release(req->persistent.type);
  for (Request* part : req->parts) request_free(part);
  if (req->schedule != nullptr) coll::schedule_destroy(req->schedule);
  if (req->comm != nullptr) comm_release(req->comm);
  g_request_table.remove(req->handle);
  req->~Request();
  if (g_pool.size() < kPoolLimit) g_pool.push_back(req);
  else ::operator delete(req);
}

bool request_test(Request* req) {
  if (req->kind == Request::Kind::kCompound) {
    for (Request* part : req->parts)
      if (!request_test(part)) return false;
    if (!req->dev.done.load(std::memory_order_relaxed)) {
      req->dev.done.store(true, std::memory_order_relaxed);
      finish(req);
    }
    return true;
  }
  if (!req->dev.done.load(std::memory_order_acquire)) return false;
  // `finished` flips once so a test followed by a wait unpacks only once.
  if (!req->finished) {
    req->finished = true;
    finish(req);
  }
  return true;
}

void request_wait(Request* req) {
  dev::wait_until([req] { return request_test(req); });
}

int request_retire(Request* req, MPI_Status* status) {
  int error = req->status.MPI_ERROR;
  // A generalized request's free function runs here so that its error, too,
  // reaches the completing call when the query function succeeded.
  if (req->kind == Request::Kind::kGeneralized && req->free_fn != nullptr) {
    const int rc = grequest_call_free(req);
    req->free_fn = nullptr;
    if (error == MPI_SUCCESS) error = rc;
  }
  if (status != MPI_STATUS_IGNORE) status_copy_out(status, req->status);
  switch (req->kind) {
    case Request::Kind::kPrequestSend:
    case Request::Kind::kPrequestRecv:
    case Request::Kind::kPrequestColl: req->persistent_active = false; break;
    default: request_free(req);
  }
  return error;
}

void request_note_failure(MPI_File file) {
  if (!t_failures.any) t_failures = {true, file};
  else if (t_failures.file != file) t_failures.file = MPI_FILE_NULL;
}

MPI_File request_take_failed_file() {
  const MPI_File file = t_failures.file;
  t_failures = {};
  return file;
}

namespace {
int reap_hook(void*) {
  const std::size_t before = g_detached.size();
  request_reap_detached();
  if (g_detached.empty()) {
    dev::remove_progress_hook(g_reap_hook);
    g_reap_hook = -1;
  }
  return static_cast<int>(before - g_detached.size());
}
}  // namespace

void request_detach(Request* req) {
  g_detached.push_back(req);
  if (g_reap_hook < 0) g_reap_hook = dev::add_progress_hook(reap_hook, nullptr);
}

void request_release_detached() {
  for (Request* req : g_detached) request_free(req);
  g_detached.clear();
  if (g_reap_hook >= 0) dev::remove_progress_hook(g_reap_hook);
  g_reap_hook = -1;
}

void request_pool_release() {
  for (Request* req : g_pool) ::operator delete(req);
  g_pool.clear();
  g_pool.shrink_to_fit();
}

void request_reap_detached() {
  for (std::size_t i = 0; i < g_detached.size();) {
    if (request_test(g_detached[i])) {
      request_free(g_detached[i]);
      g_detached[i] = g_detached.back();
      g_detached.pop_back();
    } else {
      ++i;
    }
  }
}

void status_set_bytes(MPI_Status* status, MPI_Count bytes) {
  status->count_lo = static_cast<int>(bytes & 0xffffffff);
  status->count_hi_and_cancelled =
      (status->count_hi_and_cancelled & 1) | static_cast<int>((bytes >> 32) << 1);
}

MPI_Count status_bytes(const MPI_Status* status) {
  return (static_cast<MPI_Count>(static_cast<unsigned>(status->count_hi_and_cancelled) >> 1)
          << 32) |
         static_cast<unsigned>(status->count_lo);
}

void status_set_cancelled(MPI_Status* status, bool cancelled) {
  status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (cancelled ? 1 : 0);
}

bool status_cancelled(const MPI_Status* status) { return status->count_hi_and_cancelled & 1; }

void status_copy_out(MPI_Status* user, const MPI_Status& from) {
  const int kept = user->MPI_ERROR;
  *user = from;
  user->MPI_ERROR = kept;
}

void status_set_empty_keep_error(MPI_Status* status) {
  const int kept = status->MPI_ERROR;
  status_set_empty(status);
  status->MPI_ERROR = kept;
}

void status_set_empty(MPI_Status* status) {
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->count_lo = 0;
  status->count_hi_and_cancelled = 0;
}

}  // namespace stmpi::mpi
