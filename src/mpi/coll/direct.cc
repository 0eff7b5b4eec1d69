// Small blocking collectives straight over point-to-point (direct.h).
//
// allreduce: recursive doubling with the non-power-of-two fold, exactly as
//   allreduce.cc builds it (the same messages, the same operand order), on
//   a stack buffer; contiguous types up to kMaxBytes.
// bcast: the binomial tree of bcast.cc; any datatype (point-to-point packs).
// barrier: dissemination, as barrier.cc.
// alltoall: linear (every receive, then every send, at once), as alltoall.cc.
// allgather: recursive doubling (powers of two), as allgather.cc.
// Each takes the blocking collective tag the schedule would have taken, so
// the two paths can meet in one collective.
#include "mpi/coll/direct.h"

#include <cstring>
#include <utility>

#include "mpi/coll/coll.h"
#include "mpi/coll/node.h"
#include "mpi/coll/op.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/coll/settings.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/pt2pt/pt2pt.h"

namespace stmpi::mpi::coll {
namespace {

constexpr MPI_Count kMaxBytes = 8192;
constexpr int kMaxDirectPeers = 64;

void keep_first(int* first, int err) {
  if (err != MPI_SUCCESS && *first == MPI_SUCCESS) *first = err;
}

int exchange(const void* out, void* in, MPI_Count count, Datatype& type, int peer, int tag,
             Comm& comm) {
  return pt2pt::sendrecv(out, count, type, peer, tag, in, count, type, peer, tag, comm,
                         comm.coll_context_id(), MPI_STATUS_IGNORE);
}

}  // namespace

bool direct_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type, Op& op,
                      Comm& comm, int* err) {
  if (comm.is_inter() || comm.size < 2 || count <= 0 || !type.contiguous) return false;
  const MPI_Count bytes = count * type.size;
  if (bytes > kMaxBytes) return false;
  const std::string& algorithm = settings().allreduce_algorithm;
  if (algorithm == "auto") {
    const bool short_message =
        static_cast<std::size_t>(bytes) < settings().allreduce_short_bytes || count < comm.size;
    if (!short_message || node_aware_auto(comm, static_cast<std::size_t>(bytes), op.commutative))
      return false;
  } else if (algorithm != "recursive_doubling") {
    return false;
  }
  const int tag = take_blocking_tag(comm);
  const uint32_t context = comm.coll_context_id();
  alignas(64) char store[kMaxBytes];
  char* acc = static_cast<char*>(recvbuf);
  char* spare = store - type.true_lb;
  if (sendbuf != MPI_IN_PLACE)
    std::memcpy(acc + type.true_lb, static_cast<const char*>(sendbuf) + type.true_lb,
                static_cast<std::size_t>(bytes));
  int first = MPI_SUCCESS;
  const int rank = comm.rank;
  const int n = comm.size;
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;
  int newrank = rank - rem;
  if (rank < 2 * rem) {  // the fold: 2i hands its data to 2i + 1
    if (rank % 2 == 0) {
      keep_first(&first, pt2pt::send(acc, count, type, rank + 1, tag, comm, context,
                                     dev::SendMode::kStandard));
      newrank = -1;
    } else {
      keep_first(&first,
                 pt2pt::recv(spare, count, type, rank - 1, tag, comm, context, MPI_STATUS_IGNORE));
      keep_first(&first, op_apply(op, spare, acc, count, type));
      newrank = rank / 2;
    }
  }
  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int partner_new = newrank ^ mask;
      const int partner = partner_new < rem ? partner_new * 2 + 1 : partner_new + rem;
      keep_first(&first, exchange(acc, spare, count, type, partner, tag, comm));
      if (partner_new < newrank) {
        keep_first(&first, op_apply(op, spare, acc, count, type));
      } else {
        keep_first(&first, op_apply(op, acc, spare, count, type));
        std::swap(acc, spare);
      }
    }
    if (acc != recvbuf)
      std::memcpy(static_cast<char*>(recvbuf) + type.true_lb, acc + type.true_lb,
                  static_cast<std::size_t>(bytes));
  }
  if (rank < 2 * rem) {
    if (rank % 2 == 1)
      keep_first(&first, pt2pt::send(recvbuf, count, type, rank - 1, tag, comm, context,
                                     dev::SendMode::kStandard));
    else
      keep_first(&first, pt2pt::recv(recvbuf, count, type, rank + 1, tag, comm, context,
                                     MPI_STATUS_IGNORE));
  }
  *err = first;
  return true;
}

bool direct_bcast(void* buf, MPI_Count count, Datatype& type, int root, Comm& comm, int* err) {
  if (comm.is_inter() || comm.size < 2) return false;
  const int n = comm.size;
  const auto bytes = static_cast<std::size_t>(count * type.size);
  const std::string& algorithm = settings().bcast_algorithm;
  if (algorithm == "auto") {
    if (bytes >= settings().bcast_long_bytes && n >= settings().bcast_long_min_procs) return false;
    if (node_aware_auto(comm, bytes, true)) return false;
  } else if (algorithm != "binomial") {
    return false;
  }
  const int tag = take_blocking_tag(comm);  // taken even when nothing moves, as a Schedule does
  if (bytes == 0) {
    *err = MPI_SUCCESS;
    return true;
  }
  const uint32_t context = comm.coll_context_id();
  const int relative = (comm.rank - root + n) % n;
  auto actual = [&](int v) { return (v + root) % n; };
  int first = MPI_SUCCESS;
  int mask = 1;
  while (mask < n) {
    if (relative & mask) {
      keep_first(&first, pt2pt::recv(buf, count, type, actual(relative - mask), tag, comm, context,
                                     MPI_STATUS_IGNORE));
      break;
    }
    mask <<= 1;
  }
  Request* reqs[32];
  int started = 0;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask >= n) continue;
    Request* req = nullptr;
    const int e = pt2pt::isend(buf, count, type, actual(relative + mask), tag, comm, context,
                               dev::SendMode::kStandard, &req);
    keep_first(&first, e);
    if (e == MPI_SUCCESS) reqs[started++] = req;
  }
  keep_first(&first, pt2pt::wait_all(started, reqs));
  *err = first;
  return true;
}

bool direct_barrier(Comm& comm, int* err) {
  if (comm.is_inter()) return false;
  const std::string& algorithm = settings().barrier_algorithm;
  if (algorithm == "auto") {
    if (node_aware_auto(comm, 0, true)) return false;
  } else if (algorithm != "dissemination") {
    return false;
  }
  const int tag = take_blocking_tag(comm);
  const int n = comm.size;
  const uint32_t context = comm.coll_context_id();
  Datatype& bytes = byte_type();
  int first = MPI_SUCCESS;
  for (int distance = 1; distance < n; distance <<= 1)
    keep_first(&first, pt2pt::sendrecv(nullptr, 0, bytes, (comm.rank + distance) % n, tag, nullptr,
                                       0, bytes, (comm.rank - distance + n) % n, tag, comm, context,
                                       MPI_STATUS_IGNORE));
  *err = first;
  return true;
}

bool direct_alltoall(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype, void* recvbuf,
                     MPI_Count recvcount, Datatype& recvtype, Comm& comm, int* err) {
  const int n = comm.size;
  if (comm.is_inter() || n < 2 || n > kMaxDirectPeers || sendbuf == MPI_IN_PLACE) return false;
  const auto block_bytes = static_cast<std::size_t>(recvcount * recvtype.size);
  const std::string& algorithm = settings().alltoall_algorithm;
  if (algorithm == "auto") {
    if ((block_bytes <= settings().alltoall_short_bytes && n >= 8) ||
        block_bytes > settings().alltoall_medium_bytes)
      return false;
  } else if (algorithm != "linear") {
    return false;
  }
  const int tag = take_blocking_tag(comm);
  const uint32_t context = comm.coll_context_id();
  const int rank = comm.rank;
  int first = MPI_SUCCESS;
  Request* reqs[2 * kMaxDirectPeers];
  int started = 0;
  for (int i = 1; i < n; ++i) {
    const int from = (rank - i + n) % n;
    Request* req = nullptr;
    const int e = pt2pt::irecv(block(recvbuf, from, recvcount, recvtype.extent), recvcount,
                               recvtype, from, tag, comm, context, &req);
    keep_first(&first, e);
    if (e == MPI_SUCCESS) reqs[started++] = req;
  }
  for (int i = 1; i < n; ++i) {
    const int to = (rank + i) % n;
    Request* req = nullptr;
    const int e = pt2pt::isend(block(sendbuf, to, sendcount, sendtype->extent), sendcount,
                               *sendtype, to, tag, comm, context, dev::SendMode::kStandard, &req);
    keep_first(&first, e);
    if (e == MPI_SUCCESS) reqs[started++] = req;
  }
  // The own block while the messages move (a peer may be pulling ours).
  keep_first(&first,
             copy_convert(block(sendbuf, rank, sendcount, sendtype->extent), sendcount, *sendtype,
                          block(recvbuf, rank, recvcount, recvtype.extent), recvcount, recvtype));
  keep_first(&first, pt2pt::wait_all(started, reqs));
  *err = first;
  return true;
}

bool direct_allgather(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype, void* recvbuf,
                      MPI_Count recvcount, Datatype& recvtype, Comm& comm, int* err) {
  const int n = comm.size;
  if (comm.is_inter() || n < 2 || (n & (n - 1)) != 0 || recvcount * recvtype.size == 0)
    return false;
  const std::string& algorithm = settings().allgather_algorithm;
  if (algorithm == "auto") {
    const auto total = static_cast<std::size_t>(n * recvcount * recvtype.size);
    if (total >= settings().allgather_short_bytes) return false;
  } else if (algorithm != "recursive_doubling") {
    return false;
  }
  const int tag = take_blocking_tag(comm);
  const int rank = comm.rank;
  const MPI_Aint extent = recvtype.extent;
  int first = MPI_SUCCESS;
  if (sendbuf != MPI_IN_PLACE)
    first = copy_convert(sendbuf, sendcount, *sendtype, block(recvbuf, rank, recvcount, extent),
                         recvcount, recvtype);
  for (int mask = 1; mask < n; mask <<= 1) {
    const int partner = rank ^ mask;
    keep_first(&first, pt2pt::sendrecv(block(recvbuf, rank & ~(mask - 1), recvcount, extent),
                                       mask * recvcount, recvtype, partner, tag,
                                       block(recvbuf, partner & ~(mask - 1), recvcount, extent),
                                       mask * recvcount, recvtype, partner, tag, comm,
                                       comm.coll_context_id(), MPI_STATUS_IGNORE));
  }
  *err = first;
  return true;
}

}  // namespace stmpi::mpi::coll
