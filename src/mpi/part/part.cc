// Partitioned communication (MPI 4.1 chapter 4): MPI_Psend_init,
// MPI_Precv_init, MPI_Pready(_range, _list), MPI_Parrived.
//
// A partitioned request is a persistent request (Request::Kind
// kPrequestSend / kPrequestRecv) with Request::partitions > 0, so MPI_Start,
// MPI_Wait, MPI_Test and MPI_Request_free treat it like any persistent
// request. Each epoch moves the whole buffer as one message: the receive
// is posted at MPI_Start; the send leaves when the last partition is marked
// ready. The two sides may partition the buffer differently, as MPI
// allows, since only the total size has to agree. MPI_Parrived reports a
// partition once the whole message is in (a correct, if conservative,
// answer). Pready calls from several threads (MPI_THREAD_MULTIPLE) are
// serialized by the library lock, so the readiness count needs no atomics.
//
// Matching: partitioned messages travel on the communicator's collective
// context with the user's tag folded into [2^16, 2^27) (collective
// schedules use the tags above, internal exchanges the ones below), so
// they never match an ordinary receive or a collective, and a Psend/Precv
// pair matches by (communicator, peers, tag) as MPI says; user tags that
// differ by a multiple of 2^27 - 2^16 are not told apart.
#include <climits>
#include <map>
#include <tuple>
#include <vector>

#include <mpi.h>

#include "device/match/key.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/part/impl_part.h"
#include "mpi/part/part.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/impl_request.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::part {
namespace {

// The collective context's tags from 2^27 up belong to collective
// schedules; below that, internal exchanges use small tags (< 2^16).
constexpr int kPartitionedTagBase = 1 << 16;
constexpr int kPartitionedTagSpan = (1 << 27) - kPartitionedTagBase;

// MPI matches partitioned operations in the order of their init calls (the
// k-th MPI_Psend_init to (comm, dest, tag) pairs with the k-th
// MPI_Precv_init from (comm, source, tag)), not in the order the data
// moves. Each side numbers its send inits and its receive inits per
// (context, peer, tag) and the number goes into the wire tag.
std::map<std::tuple<uint32_t, int, int, bool>, int>& init_counts() {
  static std::map<std::tuple<uint32_t, int, int, bool>, int> counts;
  return counts;
}

int wire_tag(const Request& req) {
  const long long folded = static_cast<long long>(req.persistent.tag) * 4099 + req.partition_seq;
  return kPartitionedTagBase + static_cast<int>(folded % kPartitionedTagSpan);
}

int send_now(Request* req) {
  const Request::Persistent& p = req->persistent;
  return pt2pt::start_send(req, p.buf, p.count * req->partitions, *p.type, p.peer, wire_tag(*req),
                           *req->comm, req->comm->coll_context_id(), dev::SendMode::kStandard);
}

}  // namespace

int next_init_number(uint32_t context, int peer, int tag, bool send) {
  return init_counts()[{context, peer, tag, send}]++;
}

void forget_context(uint32_t context) {
  auto& counts = init_counts();
  auto first = counts.lower_bound({context, INT_MIN, INT_MIN, false});
  auto last = counts.lower_bound({context + 1, INT_MIN, INT_MIN, false});
  counts.erase(first, last);
}

int start(Request* req) {
  const Request::Persistent& p = req->persistent;
  req->finished = false;
  if (req->kind == Request::Kind::kPrequestRecv)
    return pt2pt::start_recv(req, const_cast<void*>(p.buf), p.count * req->partitions, *p.type,
                             p.peer, wire_tag(*req), *req->comm, req->comm->coll_context_id());
  req->partitions_ready = 0;
  req->partition_ready.assign(static_cast<std::size_t>(req->partitions), 0);
  req->dev.done.store(false, std::memory_order_relaxed);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::part

namespace stmpi::impl {
namespace {

using mpi::Request;
using mpi::errhan::make_error;

int create(Request::Kind kind, const void* buf, int partitions, MPI_Count count,
           mpi::Datatype& datatype, int peer, int tag, mpi::Comm& comm, MPI_Request* request) {
  if (partitions < 1)
    return make_error(MPI_ERR_ARG, "partitions = %d must be at least 1", partitions);
  if (buf == nullptr && count > 0 && datatype.predefined)
    return make_error(MPI_ERR_BUFFER, "buf is NULL with %lld elements per partition",
                      static_cast<long long>(count));
  Request* req = mpi::request_create(kind);
  req->persistent = {buf, count, &datatype, peer, tag, 0};
  req->partitions = partitions;
  if (peer != MPI_PROC_NULL)
    req->partition_seq = mpi::part::next_init_number(comm.context_id, peer, tag,
                                                     kind == Request::Kind::kPrequestSend);
  mpi::datatype_retain(&datatype);
  req->comm = &comm;
  mpi::comm_retain(&comm);
  *request = req->handle;
  return MPI_SUCCESS;
}

// The active partitioned send request behind `handle`, or an error.
int active_send(MPI_Request handle, Request** out) {
  Request* req = mpi::request_get(handle);
  if (req == nullptr || req->partitions == 0)
    return make_error(MPI_ERR_REQUEST, "request 0x%x is not a partitioned request",
                      static_cast<unsigned>(handle));
  if (req->kind != Request::Kind::kPrequestSend)
    return make_error(MPI_ERR_REQUEST,
                      "request 0x%x is a partitioned receive; only send partitions are marked "
                      "ready",
                      static_cast<unsigned>(handle));
  if (!req->persistent_active)
    return make_error(MPI_ERR_REQUEST, "request 0x%x is not active: call MPI_Start first",
                      static_cast<unsigned>(handle));
  *out = req;
  return MPI_SUCCESS;
}

int check_partition(const Request* req, int partition) {
  if (partition < 0 || partition >= req->partitions)
    return make_error(MPI_ERR_ARG, "partition %d is outside 0..%d", partition, req->partitions - 1);
  if (req->partition_ready[partition])
    return make_error(MPI_ERR_ARG, "partition %d was already marked ready in this epoch",
                      partition);
  return MPI_SUCCESS;
}

int mark(Request* req, int partition) {
  req->partition_ready[partition] = 1;
  if (++req->partitions_ready == req->partitions) return mpi::part::send_now(req);
  return MPI_SUCCESS;
}

}  // namespace

int psend_init(const void* buf, int partitions, MPI_Count count, mpi::Datatype& datatype, int dest,
               int tag, mpi::Comm& comm, MPI_Info /*info*/, MPI_Request* request) {
  return create(Request::Kind::kPrequestSend, buf, partitions, count, datatype, dest, tag, comm,
                request);
}

int precv_init(void* buf, int partitions, MPI_Count count, mpi::Datatype& datatype, int source,
               int tag, mpi::Comm& comm, MPI_Info /*info*/, MPI_Request* request) {
  if (source == MPI_ANY_SOURCE)
    return make_error(MPI_ERR_RANK, "source = MPI_ANY_SOURCE is not allowed for MPI_Precv_init");
  if (tag == MPI_ANY_TAG)
    return make_error(MPI_ERR_TAG, "tag = MPI_ANY_TAG is not allowed for MPI_Precv_init");
  return create(Request::Kind::kPrequestRecv, buf, partitions, count, datatype, source, tag, comm,
                request);
}

int pready(int partition, MPI_Request request) {
  Request* req = nullptr;
  if (int err = active_send(request, &req); err != MPI_SUCCESS) return err;
  if (int err = check_partition(req, partition); err != MPI_SUCCESS) return err;
  return mark(req, partition);
}

int pready_range(int partition_low, int partition_high, MPI_Request request) {
  Request* req = nullptr;
  if (int err = active_send(request, &req); err != MPI_SUCCESS) return err;
  if (partition_low > partition_high)
    return make_error(MPI_ERR_ARG, "partition_low = %d is above partition_high = %d", partition_low,
                      partition_high);
  for (int p = partition_low; p <= partition_high; ++p)
    if (int err = check_partition(req, p); err != MPI_SUCCESS) return err;
  for (int p = partition_low; p <= partition_high; ++p)
    if (int err = mark(req, p); err != MPI_SUCCESS) return err;
  return MPI_SUCCESS;
}

int pready_list(int length, int array_of_partitions[], MPI_Request request) {
  Request* req = nullptr;
  if (int err = active_send(request, &req); err != MPI_SUCCESS) return err;
  if (length < 0) return make_error(MPI_ERR_ARG, "length = %d is negative", length);
  std::vector<uint8_t> seen(static_cast<std::size_t>(req->partitions), 0);
  for (int i = 0; i < length; ++i) {
    const int p = array_of_partitions[i];
    if (int err = check_partition(req, p); err != MPI_SUCCESS) return err;
    if (seen[p]++)
      return make_error(MPI_ERR_ARG, "array_of_partitions[%d] = %d is listed twice", i, p);
  }
  for (int i = 0; i < length; ++i)
    if (int err = mark(req, array_of_partitions[i]); err != MPI_SUCCESS) return err;
  return MPI_SUCCESS;
}

int parrived(MPI_Request request, int partition, int* flag) {
  Request* req = mpi::request_get(request);
  if (req == nullptr || req->partitions == 0 || req->kind != Request::Kind::kPrequestRecv)
    return make_error(MPI_ERR_REQUEST, "request 0x%x is not a partitioned receive request",
                      static_cast<unsigned>(request));
  if (partition < 0 || partition >= req->partitions)
    return make_error(MPI_ERR_ARG, "partition %d is outside 0..%d", partition, req->partitions - 1);
  if (!req->persistent_active) {
    *flag = 1;  // an inactive request has nothing pending
    return MPI_SUCCESS;
  }
  *flag = mpi::request_test(req) ? 1 : 0;
  if (*flag == 0) dev::progress();
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
