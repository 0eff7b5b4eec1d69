// Completion calls: Wait/Test and their any/all/some forms, Cancel,
// Request_free, Request_get_status, status queries, generalized requests.
#include <algorithm>
#include <vector>

#include "device/device.h"
#include "device/progress.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/init/state.h"
#include "mpi/request/impl_request.h"
#include "mpi/request/request.h"

namespace stmpi::impl {
namespace {

using mpi::Request;

// Null handles and inactive persistent requests complete at once with an
// empty status. `*req` is null for them.
int resolve(MPI_Request handle, Request** req) {
  *req = nullptr;
  if (handle == MPI_REQUEST_NULL) return MPI_SUCCESS;
  Request* found = mpi::request_get(handle);
  if (found == nullptr || found->kind == Request::Kind::kMessage)
    return mpi::errhan::make_error(MPI_ERR_REQUEST, "request=0x%x is not a valid request",
                                   static_cast<unsigned>(handle));
  const bool inactive = mpi::request_is_persistent(found) && !found->persistent_active;
  if (!inactive) *req = found;
  return MPI_SUCCESS;
}

void set_empty(MPI_Status* status) {
  if (status != MPI_STATUS_IGNORE) mpi::status_set_empty_keep_error(status);
}

// A multiple-completion call that returns MPI_ERR_IN_STATUS: the error
// field of each status it filled says how that request ended.
int in_status(const std::vector<int>& errors, MPI_Status statuses[]) {
  bool any_error = false;
  for (int err : errors) any_error = any_error || err != MPI_SUCCESS;
  if (!any_error) return MPI_SUCCESS;
  if (statuses != MPI_STATUSES_IGNORE)
    for (std::size_t i = 0; i < errors.size(); ++i) statuses[i].MPI_ERROR = errors[i];
  return MPI_ERR_IN_STATUS;
}

// Retires a complete request and nulls the user's handle unless persistent.
// A failure is noted for the error handler (request_note_failure).
int retire(MPI_Request* handle, Request* req, MPI_Status* status) {
  const bool persistent = mpi::request_is_persistent(req);
  const MPI_File file = req->file;
  const int err = mpi::request_retire(req, status);
  if (!persistent) *handle = MPI_REQUEST_NULL;
  if (err != MPI_SUCCESS) [[unlikely]]
    mpi::request_note_failure(file);
  return err;
}

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

int validate_array(int count, const MPI_Request requests[], std::vector<Request*>* reqs) {
  if (count < 0)
    return mpi::errhan::make_error(MPI_ERR_COUNT, "count=%d must be non-negative", count);
  if (count > 0 && requests == nullptr)
    return mpi::errhan::make_error(MPI_ERR_ARG, "array_of_requests is NULL with count=%d", count);
  reqs->resize(count);
  for (int i = 0; i < count; ++i)
    if (int err = resolve(requests[i], &(*reqs)[i]); err != MPI_SUCCESS) return err;
  return MPI_SUCCESS;
}

// Shared by Testany/Waitany: index of a completed request, retired.
bool any_complete(int count, MPI_Request requests[], std::vector<Request*>& reqs, int* index,
                  MPI_Status* status, int* err, bool* all_inactive) {
  *all_inactive = true;
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == nullptr) continue;
    *all_inactive = false;
    if (mpi::request_test(reqs[i])) {
      *index = i;
      *err = retire(&requests[i], reqs[i], status);
      return true;
    }
  }
  return false;
}

}  // namespace

int wait(MPI_Request* request, MPI_Status* status) {
  Request* req = nullptr;
  if (int err = resolve(*request, &req); err != MPI_SUCCESS) return err;
  if (req == nullptr) {
    set_empty(status);
    return MPI_SUCCESS;
  }
  mpi::request_wait(req);
  return retire(request, req, status);
}

namespace {

// A program that computes and calls MPI_Test now and then is waiting too.
// Where ranks outnumber the CPUs (the backoff policy's short period,
// util/backoff.h), the peers it waits for may share its CPU and run only
// when it gives the CPU up: an unsuccessful MPI_Test yields once, then
// progresses again, so a nonblocking collective moves while every rank
// computes (4 ranks on 2 CPUs: an MPI_Iallreduce of 1 MiB took 4-7 times
// the computation's length without this). Ranks with a CPU of their own
// never yield here. MPI_Testall/any/some that find nothing to return do
// the same.
bool yield_when_oversubscribed() {
  if (util::polls_before_yield() > util::kOversubscribedPolls) return false;
  util::yield_now();
  dev::progress();
  return true;
}

bool test_after_yield(Request* req) {
  return yield_when_oversubscribed() && mpi::request_test(req);
}

}  // namespace

int test(MPI_Request* request, int* flag, MPI_Status* status) {
  Request* req = nullptr;
  if (int err = resolve(*request, &req); err != MPI_SUCCESS) return err;
  if (req == nullptr) {
    *flag = 1;
    set_empty(status);
    return MPI_SUCCESS;
  }
  if (!mpi::request_test(req)) {
    dev::progress();
    if (!mpi::request_test(req) && !test_after_yield(req)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return retire(request, req, status);
}

int waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  std::vector<Request*> reqs;
  if (int err = validate_array(count, array_of_requests, &reqs); err != MPI_SUCCESS) return err;
  std::vector<int> errors(count, MPI_SUCCESS);
  for (int i = 0; i < count; ++i) {
    MPI_Status* status = status_at(array_of_statuses, i);
    if (reqs[i] == nullptr) {
      set_empty(status);
      continue;
    }
    mpi::request_wait(reqs[i]);
    errors[i] = retire(&array_of_requests[i], reqs[i], status);
  }
  return in_status(errors, array_of_statuses);
}

int testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) {
  std::vector<Request*> reqs;
  if (int err = validate_array(count, array_of_requests, &reqs); err != MPI_SUCCESS) return err;
  dev::progress();
  for (int i = 0; i < count; ++i) {
    if (reqs[i] != nullptr && !mpi::request_test(reqs[i])) {
      *flag = 0;
      (void)yield_when_oversubscribed();
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  std::vector<int> errors(count, MPI_SUCCESS);
  for (int i = 0; i < count; ++i) {
    MPI_Status* status = status_at(array_of_statuses, i);
    if (reqs[i] == nullptr) {
      set_empty(status);
      continue;
    }
    errors[i] = retire(&array_of_requests[i], reqs[i], status);
  }
  return in_status(errors, array_of_statuses);
}

int waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  std::vector<Request*> reqs;
  if (int err = validate_array(count, array_of_requests, &reqs); err != MPI_SUCCESS) return err;
  dev::ProgressWait poller;
  for (;;) {
    int err = MPI_SUCCESS;
    bool all_inactive = false;
    if (any_complete(count, array_of_requests, reqs, index, status, &err, &all_inactive))
      return err;
    if (all_inactive) {
      *index = MPI_UNDEFINED;
      set_empty(status);
      return MPI_SUCCESS;
    }
    poller.pause();
  }
}

int testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status) {
  std::vector<Request*> reqs;
  if (int err = validate_array(count, array_of_requests, &reqs); err != MPI_SUCCESS) return err;
  dev::progress();
  int err = MPI_SUCCESS;
  bool all_inactive = false;
  if (any_complete(count, array_of_requests, reqs, index, status, &err, &all_inactive)) {
    *flag = 1;
    return err;
  }
  *flag = all_inactive ? 1 : 0;
  *index = MPI_UNDEFINED;
  if (all_inactive) set_empty(status);
  else (void)yield_when_oversubscribed();
  return MPI_SUCCESS;
}

namespace {

// Shared by Testsome/Waitsome: retires every completed request.
int collect_some(int incount, MPI_Request requests[], std::vector<Request*>& reqs, int* outcount,
                 int indices[], MPI_Status statuses[], bool* all_inactive) {
  *outcount = 0;
  *all_inactive = true;
  std::vector<int> errors;
  for (int i = 0; i < incount; ++i) {
    if (reqs[i] == nullptr) continue;
    *all_inactive = false;
    if (!mpi::request_test(reqs[i])) continue;
    MPI_Status* status = status_at(statuses, *outcount);
    errors.push_back(retire(&requests[i], reqs[i], status));
    indices[(*outcount)++] = i;
  }
  if (*all_inactive) *outcount = MPI_UNDEFINED;
  return in_status(errors, statuses);
}

}  // namespace

int waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
             MPI_Status array_of_statuses[]) {
  std::vector<Request*> reqs;
  if (int err = validate_array(incount, array_of_requests, &reqs); err != MPI_SUCCESS) return err;
  dev::ProgressWait poller;
  for (;;) {
    bool all_inactive = false;
    const int err = collect_some(incount, array_of_requests, reqs, outcount, array_of_indices,
                                 array_of_statuses, &all_inactive);
    if (all_inactive || *outcount > 0) return err;
    poller.pause();
  }
}

int testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
             MPI_Status array_of_statuses[]) {
  std::vector<Request*> reqs;
  if (int err = validate_array(incount, array_of_requests, &reqs); err != MPI_SUCCESS) return err;
  dev::progress();
  bool all_inactive = false;
  const int err = collect_some(incount, array_of_requests, reqs, outcount, array_of_indices,
                               array_of_statuses, &all_inactive);
  if (!all_inactive && *outcount == 0) (void)yield_when_oversubscribed();
  return err;
}

int cancel(MPI_Request* request) {
  Request* req = nullptr;
  if (*request == MPI_REQUEST_NULL)
    return mpi::errhan::make_error(MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
  if (int err = resolve(*request, &req); err != MPI_SUCCESS) return err;
  if (req == nullptr) return MPI_SUCCESS;
  if (req->kind == Request::Kind::kGeneralized) {
    return mpi::grequest_call_cancel(req, req->dev.done.load(std::memory_order_acquire));
  }
  if ((req->kind == Request::Kind::kRecv || req->kind == Request::Kind::kPrequestRecv) &&
      dev::cancel_recv(&req->dev)) {
    if (req->user_type != nullptr) {
      mpi::datatype_release(req->user_type);
      req->user_type = nullptr;
    }
    req->finished = true;
    mpi::status_set_empty(&req->status);
    mpi::status_set_cancelled(&req->status, true);
    req->dev.done.store(true, std::memory_order_release);
  }
  if ((req->kind == Request::Kind::kSend || req->kind == Request::Kind::kPrequestSend) &&
      req->status.MPI_SOURCE != MPI_PROC_NULL)
    dev::cancel_send(&req->dev);
  return MPI_SUCCESS;
}

int test_cancelled(const MPI_Status* status, int* flag) {
  *flag = mpi::status_cancelled(status) ? 1 : 0;
  return MPI_SUCCESS;
}

int request_free(MPI_Request* request) {
  Request* req = nullptr;
  if (*request == MPI_REQUEST_NULL)
    return mpi::errhan::make_error(MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
  if (int err = resolve(*request, &req); err != MPI_SUCCESS) return err;
  if (req == nullptr) {  // an inactive persistent request
    mpi::request_free(mpi::request_get(*request));
  } else if (mpi::request_test(req) &&
             (!mpi::request_is_persistent(req) || req->schedule != nullptr)) {
    mpi::request_free(req);
  } else if (req->schedule != nullptr) {
    // An active collective: the engine frees it when its schedule completes.
    req->freed_by_user = true;
  } else {
    mpi::request_detach(req);
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  Request* req = nullptr;
  if (int err = resolve(request, &req); err != MPI_SUCCESS) return err;
  if (req == nullptr) {
    *flag = 1;
    set_empty(status);
    return MPI_SUCCESS;
  }
  if (!mpi::request_test(req)) dev::progress();
  *flag = mpi::request_test(req) ? 1 : 0;
  if (*flag && status != MPI_STATUS_IGNORE) mpi::status_copy_out(status, req->status);
  return MPI_SUCCESS;
}

namespace {

int count_of(const MPI_Status* status, const mpi::Datatype& type, MPI_Count* count) {
  const MPI_Count bytes = mpi::status_bytes(status);
  if (type.size == 0) *count = 0;
  else if (bytes % type.size != 0) *count = MPI_UNDEFINED;
  else *count = bytes / type.size;
  return MPI_SUCCESS;
}

int narrow(MPI_Count value, int* out) {
  *out = value > INT32_MAX ? MPI_UNDEFINED : static_cast<int>(value);
  return MPI_SUCCESS;
}

}  // namespace

int get_count(const MPI_Status* status, mpi::Datatype& datatype, int* count) {
  MPI_Count big = 0;
  (void)count_of(status, datatype, &big);
  return narrow(big, count);
}
int get_count_c(const MPI_Status* status, mpi::Datatype& datatype, MPI_Count* count) {
  return count_of(status, datatype, count);
}
int get_elements(const MPI_Status* status, mpi::Datatype& datatype, int* count) {
  return narrow(datatype.elements(mpi::status_bytes(status)), count);
}
int get_elements_count(const MPI_Status* status, mpi::Datatype& datatype, MPI_Count* count) {
  *count = datatype.elements(mpi::status_bytes(status));
  return MPI_SUCCESS;
}

namespace {

// The bytes of the first `count` basic elements of repeated instances of
// `type` (the inverse of Datatype::elements): whole instances, then the
// elements of the type signature in order, so that a type mixing sizes
// (a struct of char, int, double) counts each element by its own size.
MPI_Count bytes_of_elements(const mpi::Datatype& type, MPI_Count count) {
  const MPI_Count per_instance = type.layout.element_count;
  if (per_instance <= 0) return 0;
  MPI_Count bytes = count / per_instance * type.size;
  MPI_Count rest = count % per_instance;
  for (const mpi::ElementGroup& group : type.layout.signature) {
    if (rest == 0) break;
    MPI_Count group_bytes = 0, group_elements = 0;
    for (const mpi::ElementRun& run : group.runs) {
      group_bytes += run.size * run.count;
      group_elements += run.count;
    }
    if (group_elements == 0) continue;
    const MPI_Count repeats = std::min(rest / group_elements, group.repeat);
    bytes += repeats * group_bytes;
    rest -= repeats * group_elements;
    if (repeats == group.repeat) continue;
    for (const mpi::ElementRun& run : group.runs) {
      const MPI_Count take = std::min(rest, run.count);
      bytes += take * run.size;
      rest -= take;
      if (rest == 0) break;
    }
  }
  return bytes;
}

}  // namespace

int status_set_elements_count(MPI_Status* status, mpi::Datatype& datatype, MPI_Count count) {
  if (count < 0)
    return mpi::errhan::make_error(MPI_ERR_COUNT, "count=%lld must be non-negative",
                                   static_cast<long long>(count));
  mpi::status_set_bytes(status, bytes_of_elements(datatype, count));
  return MPI_SUCCESS;
}
int status_set_cancelled(MPI_Status* status, int flag) {
  mpi::status_set_cancelled(status, flag != 0);
  return MPI_SUCCESS;
}

int grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                   MPI_Request* request) {
  Request* req = mpi::request_create(Request::Kind::kGeneralized);
  req->query_fn = query_fn;
  req->free_fn = free_fn;
  req->cancel_fn = cancel_fn;
  req->extra_state = extra_state;
  *request = req->handle;
  return MPI_SUCCESS;
}

int grequest_complete(MPI_Request request) {
  Request* req = mpi::request_get(request);
  if (req == nullptr || req->kind != Request::Kind::kGeneralized)
    return mpi::errhan::make_error(MPI_ERR_REQUEST, "request=0x%x is not a generalized request",
                                   static_cast<unsigned>(request));
  req->dev.done.store(true, std::memory_order_release);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
