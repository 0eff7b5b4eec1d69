// MPI Advance's persistent stream-triggering calls (include/mpis.h) over
// the enqueue engine (src/mpi/enqueue/engine.h) and persistent collectives.
//
// A point-to-point request is a persistent engine transfer made at the
// match (envelope sent or awaited then, once); each MPIS_Enqueue_start
// enqueues one round, which moves data only when the stream gets there and
// pairs with the peer's round of the same number. The transfers live on a
// duplicate of the user's communicator with the engine's contexts, made the
// first time a process uses that communicator here (collective over it,
// like the duplicate MPI Advance makes). Barrier and allreduce requests are
// persistent collectives (MPI_Barrier_init, MPI_Allreduce_init), started
// when the stream reaches MPIS_Enqueue_start and waited for there.
#include "mpi/mpix/mpis.h"

#include <memory>
#include <new>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mpi/coll/impl_coll.h"
#include "mpi/coll/mode.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/datatype/datatype.h"
#include "mpi/enqueue/engine.h"
#include "mpi/enqueue/stream_object.h"
#include "mpi/errhan/error.h"
#include "mpi/mpix/impl_mpix.h"
#include "mpi/request/impl_request.h"
#include "mpi/request/request.h"
#include "stream/registry.h"
#include "stream/stream.h"
#include "util/error.h"

namespace {
enum class Kind : uint8_t { kSend, kRecv, kBarrier, kAllreduce, kMatch };
}

struct MPIS_Request_struct {
  Kind kind = Kind::kSend;
  bool matched = false;
  stmpi::mpi::enqueue::TransferArgs args;
  stmpi::mpi::Comm* comm = nullptr;                   // the user's (p2p, until matched)
  stmpi::mpi::enqueue::Transfer* transfer = nullptr;  // p2p, once matched
  MPI_Request coll = MPI_REQUEST_NULL;                // barrier, allreduce
  bool coll_started = false;                          // a round is running
};

struct MPIS_Queue_s {
  std::shared_ptr<stmpi::stream::Stream> stream;
  MPIX_Host_stream own = nullptr;  // a host stream the queue made for itself
  std::vector<MPIS_Request_struct*> started;
};

namespace stmpi::impl {
namespace {

using mpi::enqueue::Transfer;
using mpi::errhan::make_error;

std::unordered_set<MPIS_Queue_s*>& live_queues() {
  static std::unordered_set<MPIS_Queue_s*> live;
  return live;
}
std::unordered_set<MPIS_Request_struct*>& live_requests() {
  static std::unordered_set<MPIS_Request_struct*> live;
  return live;
}

int queue_of(const char* call, MPIS_Queue handle, MPIS_Queue_s** out) {
  auto* q = reinterpret_cast<MPIS_Queue_s*>(handle);
  if (q == nullptr || live_queues().count(q) == 0)
    return make_error(MPI_ERR_ARG,
                      "%s: queue=0x%zx is not a queue (MPIS_QUEUE_NULL, freed, or not "
                      "made by MPIS_Queue_init)",
                      call, static_cast<std::size_t>(handle));
  *out = q;
  return MPI_SUCCESS;
}

int request_of(const char* call, const MPIS_Request* handle, MPIS_Request_struct** out) {
  if (handle == nullptr || *handle == nullptr || live_requests().count(*handle) == 0)
    return make_error(MPI_ERR_REQUEST,
                      "%s: request=%p is not an MPIS request (MPIS_REQUEST_NULL, "
                      "freed, or not made by an MPIS_ init call)",
                      call, handle == nullptr ? nullptr : static_cast<void*>(*handle));
  *out = *handle;
  return MPI_SUCCESS;
}

// The engine's duplicate of a user communicator, made once per communicator
// (a communicator freed and another made under the same handle is told
// apart by its context id).
struct EngineComm {
  uint32_t context_id = 0;
  MPI_Comm dup = MPI_COMM_NULL;
};

std::unordered_map<int, EngineComm>& engine_comms() {
  static std::unordered_map<int, EngineComm> by_handle;
  return by_handle;
}

int engine_comm(mpi::Comm& comm, mpi::Comm** out) {
  EngineComm& e = engine_comms()[comm.handle];
  if (e.dup == MPI_COMM_NULL || e.context_id != comm.context_id) {
    e.dup = MPI_COMM_NULL;
    if (int err = mpi::enqueue::attach_engine(comm, &e.dup)) return err;
    e.context_id = comm.context_id;
    mpi::enqueue::force_locking();
  }
  *out = mpi::comm_get(e.dup);
  return MPI_SUCCESS;
}

MPIS_Request_struct* new_request(Kind kind) {
  auto* r = new (std::nothrow) MPIS_Request_struct;
  if (r != nullptr) {
    r->kind = kind;
    live_requests().insert(r);
  }
  return r;
}

// One round of a persistent collective, run where the stream reached it.
bool coll_round(void* arg) {
  auto* r = static_cast<MPIS_Request_struct*>(arg);
  int err = MPI_SUCCESS;
  if (!r->coll_started) {
    r->coll_started = true;
    err = start(&r->coll);
  }
  if (err == MPI_SUCCESS) {
    mpi::Request* req = mpi::request_get(r->coll);
    if (!mpi::request_test(req)) return false;
    err = mpi::request_retire(req, MPI_STATUS_IGNORE);
  }
  r->coll_started = false;
  if (err != MPI_SUCCESS)
    std::fprintf(stderr, "STMPI: an MPIS_ collective failed on its stream: %s\n",
                 util::error_string(err).c_str());
  return true;
}

}  // namespace

int mpis_queue_init(MPIS_Queue* queue, int type, void* stream_address) {
  constexpr const char* kCall = "MPIS_Queue_init";
  std::unique_ptr<MPIS_Queue_s> q(new (std::nothrow) MPIS_Queue_s);
  if (q == nullptr) return make_error(MPI_ERR_NO_MEM, "%s: out of memory", kCall);
  void* handle = stream_address != nullptr ? *static_cast<void**>(stream_address) : nullptr;
  if (type == THREAD) {
    // The program's host stream, if it passed one; else the queue's own.
    if (handle == nullptr || stream::find_host_stream_borrowed(handle) == nullptr) {
      if (int err = mpix_host_stream_create(&q->own)) return err;
      handle = q->own;
    }
  } else if (type != GPU_MEM_OPS && type != CXI) {
    return make_error(MPI_ERR_ARG, "%s: type=%d is not THREAD (0), GPU_MEM_OPS (3) or CXI (4)",
                      kCall, type);
  } else if (stream_address == nullptr) {
    return make_error(MPI_ERR_ARG, "%s: type=%d needs the address of a GPU stream", kCall, type);
  }
  if (int err = stream::resolve(handle, &q->stream)) {
    if (q->own != nullptr) (void)mpix_host_stream_free(&q->own);
    return make_error(util::error_class_of(err), "%s: type=%d: %s", kCall, type,
                      util::error_string(err).c_str());
  }
  mpi::enqueue::force_locking();
  live_queues().insert(q.get());
  *queue = reinterpret_cast<MPIS_Queue>(q.release());
  return MPI_SUCCESS;
}

int mpis_queue_wait(MPIS_Queue queue) {
  MPIS_Queue_s* q = nullptr;
  if (int err = queue_of("MPIS_Queue_wait", queue, &q)) return err;
  return q->stream->synchronize();
}

int mpis_queue_free(MPIS_Queue* queue) {
  MPIS_Queue_s* q = nullptr;
  if (int err = queue_of("MPIS_Queue_free", *queue, &q)) return err;
  if (int err = q->stream->synchronize()) return err;
  live_queues().erase(q);
  q->stream.reset();
  int err = MPI_SUCCESS;
  if (q->own != nullptr) err = mpix_host_stream_free(&q->own);
  delete q;
  *queue = MPIS_QUEUE_NULL;
  return err;
}

int mpis_p2p_init(bool is_send, const void* buf, MPI_Count count, mpi::Datatype& type, int peer,
                  int tag, mpi::Comm& comm, MPIS_Request* request) {
  if (!is_send && (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG))
    return make_error(peer == MPI_ANY_SOURCE ? MPI_ERR_RANK : MPI_ERR_TAG,
                      "MPIS_Recv_init: %s is not allowed: a persistent stream receive is matched "
                      "once, with one sender and one tag",
                      peer == MPI_ANY_SOURCE ? "source=MPI_ANY_SOURCE" : "tag=MPI_ANY_TAG");
  MPIS_Request_struct* r = new_request(is_send ? Kind::kSend : Kind::kRecv);
  if (r == nullptr) return make_error(MPI_ERR_NO_MEM, "out of memory for an MPIS request");
  if (is_send) r->args.send_buf = buf;
  else r->args.recv_buf = const_cast<void*>(buf);
  r->args.count = count;
  r->args.type = &type;
  r->args.peer = peer;
  r->args.tag = tag;
  r->args.persistent = true;
  r->comm = &comm;
  *request = r;
  return MPI_SUCCESS;
}

int mpis_barrier_init(mpi::Comm& comm, MPIS_Request* request) {
  MPIS_Request_struct* r = new_request(Kind::kBarrier);
  if (r == nullptr) return make_error(MPI_ERR_NO_MEM, "out of memory for an MPIS request");
  if (int err = barrier_any(comm, mpi::coll::Mode::kPersistent, &r->coll)) {
    live_requests().erase(r);
    delete r;
    return err;
  }
  *request = r;
  return MPI_SUCCESS;
}

int mpis_allreduce_init(const void* sendbuf, void* recvbuf, int count, mpi::Datatype& type,
                        mpi::Op& op, mpi::Comm& comm, MPIS_Request* request) {
  MPIS_Request_struct* r = new_request(Kind::kAllreduce);
  if (r == nullptr) return make_error(MPI_ERR_NO_MEM, "out of memory for an MPIS request");
  if (int err = allreduce_any(sendbuf, recvbuf, count, type, op, comm, mpi::coll::Mode::kPersistent,
                              &r->coll)) {
    live_requests().erase(r);
    delete r;
    return err;
  }
  *request = r;
  return MPI_SUCCESS;
}

int mpis_match(const char* call, MPIS_Request* request, MPI_Status* status) {
  MPIS_Request_struct* r = nullptr;
  if (int err = request_of(call, request, &r)) return err;
  if (status != MPI_STATUS_IGNORE) mpi::status_set_empty(status);
  if (r->matched || r->kind == Kind::kMatch) return MPI_SUCCESS;
  if (r->kind == Kind::kSend || r->kind == Kind::kRecv) {
    mpi::Comm* comm = nullptr;
    if (int err = engine_comm(*r->comm, &comm)) return err;
    const int err = r->kind == Kind::kSend ? mpi::enqueue::send_init(r->args, *comm, &r->transfer)
                                           : mpi::enqueue::recv_init(r->args, *comm, &r->transfer);
    if (err != MPI_SUCCESS) return err;
  }
  r->matched = true;
  return MPI_SUCCESS;
}

int mpis_imatch(MPIS_Request* request, MPIS_Request* match_request) {
  if (int err = mpis_match("MPIS_Imatch", request, MPI_STATUS_IGNORE)) return err;
  MPIS_Request_struct* m = new_request(Kind::kMatch);
  if (m == nullptr) return make_error(MPI_ERR_NO_MEM, "out of memory for an MPIS request");
  m->matched = true;
  *match_request = m;
  return MPI_SUCCESS;
}

int mpis_is_matched(MPIS_Request* request, int* matched) {
  MPIS_Request_struct* r = nullptr;
  if (int err = request_of("MPIS_Is_matched", request, &r)) return err;
  *matched = r->matched ? 1 : 0;
  return MPI_SUCCESS;
}

namespace {

// A request MPIS_Enqueue_start may start: a matched communication request.
int startable(const char* call, MPIS_Request* request, MPIS_Request_struct** out) {
  MPIS_Request_struct* r = nullptr;
  if (int err = request_of(call, request, &r)) return err;
  if (r->kind == Kind::kMatch)
    return make_error(MPI_ERR_REQUEST,
                      "%s: request=%p is the handle of an MPIS_Imatch, not a "
                      "communication request",
                      call, static_cast<void*>(r));
  if (!r->matched)
    return make_error(MPI_ERR_REQUEST,
                      "%s: request=%p is not matched yet (call MPIS_Match, "
                      "MPIS_Matchall, MPIS_Imatch or MPIS_Queue_match first)",
                      call, static_cast<void*>(r));
  *out = r;
  return MPI_SUCCESS;
}

}  // namespace

int mpis_enqueue_start(const char* call, MPIS_Queue queue, MPIS_Request* request) {
  return mpis_enqueue_startall(call, queue, 1, request);
}

int mpis_enqueue_startall(const char* call, MPIS_Queue queue, int count, MPIS_Request requests[]) {
  MPIS_Queue_s* q = nullptr;
  if (int err = queue_of(call, queue, &q)) return err;
  // Scratch lists kept per thread: a step allocates nothing.
  thread_local std::vector<MPIS_Request_struct*> rs;
  thread_local std::vector<Transfer*> run;
  rs.assign(static_cast<std::size_t>(count), nullptr);
  run.clear();
  for (int i = 0; i < count; ++i)  // every request checked before any is started
    if (int err = startable(call, &requests[i], &rs[i])) return err;
  // Runs of point-to-point requests go to the stream as one operation; a
  // collective's round is its own.
  auto flush_run = [&] {
    const int err = mpi::enqueue::enqueue_start_all(run, *q->stream);
    run.clear();
    return err;
  };
  for (MPIS_Request_struct* r : rs) {
    if (r->transfer != nullptr) {
      run.push_back(r->transfer);
      q->started.push_back(r);
      continue;
    }
    if (int err = flush_run()) return err;
    if (int err = mpi::enqueue::enqueue_locked(*q->stream, coll_round, r)) return err;
  }
  return flush_run();
}

int mpis_enqueue_waitall(MPIS_Queue queue) {
  MPIS_Queue_s* q = nullptr;
  if (int err = queue_of("MPIS_Enqueue_waitall", queue, &q)) return err;
  thread_local std::vector<Transfer*> transfers;
  transfers.clear();
  for (MPIS_Request_struct* r : q->started) transfers.push_back(r->transfer);
  if (int err = mpi::enqueue::enqueue_wait_all(transfers, *q->stream, {}, false)) return err;
  q->started.clear();
  return MPI_SUCCESS;
}

int mpis_request_free(const char* call, MPIS_Request* request) {
  if (*request == MPIS_REQUEST_NULL) return MPI_SUCCESS;
  MPIS_Request_struct* r = nullptr;
  if (int err = request_of(call, request, &r)) return err;
  for (MPIS_Queue_s* q : live_queues())
    for (MPIS_Request_struct* started : q->started)
      if (started == r)
        return make_error(MPI_ERR_REQUEST,
                          "%s: request=%p was started on queue=%p and not "
                          "waited for (MPIS_Enqueue_waitall, then MPIS_Queue_wait)",
                          call, static_cast<void*>(r), static_cast<void*>(q));
  int err = MPI_SUCCESS;
  if (r->transfer != nullptr) mpi::enqueue::release(r->transfer);
  if (r->coll != MPI_REQUEST_NULL) err = request_free(&r->coll);
  live_requests().erase(r);
  delete r;
  *request = MPIS_REQUEST_NULL;
  return err;
}

int mpis_finalize() {
  int first = MPI_SUCCESS;
  for (auto& [handle, e] : engine_comms()) {
    if (e.dup == MPI_COMM_NULL) continue;
    const int err = comm_free(&e.dup);
    if (first == MPI_SUCCESS) first = err;
  }
  engine_comms().clear();
  return first;
}

int mpis_wait(const char* call, MPIS_Request* request, MPI_Status* status) {
  if (*request == MPIS_REQUEST_NULL) return MPI_SUCCESS;
  MPIS_Request_struct* r = nullptr;
  if (int err = request_of(call, request, &r)) return err;
  if (r->kind != Kind::kMatch)
    return make_error(MPI_ERR_REQUEST,
                      "%s: request=%p is a communication request: wait for its "
                      "rounds on the stream (MPIS_Enqueue_waitall) or with MPIS_Queue_wait",
                      call, static_cast<void*>(r));
  if (status != MPI_STATUS_IGNORE) mpi::status_set_empty(status);
  live_requests().erase(r);
  delete r;
  *request = MPIS_REQUEST_NULL;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
