// Intercommunicator collectives, all linear: each process exchanges
// directly with the remote processes it needs (MPICH and Open MPI also
// start from such forms; a two-level variant over the local
// intracommunicators is future work). Reductions combine the remote
// group's contributions in rank order, so non-commutative ops work.
#include "mpi/coll/inter.h"

#include "mpi/coll/sched/schedule.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"

namespace stmpi::mpi::coll {
namespace {

int remote_size(Schedule& s) { return s.comm().peer_size(); }

// Receives `count` instances from every remote process into consecutive
// slots of a scratch buffer, then folds them in rank order into `result`.
void gather_and_fold(Schedule& s, void* result, MPI_Count count, Datatype& type, MPI_Count offset,
                     MPI_Count stride) {
  const int m = remote_size(s);
  void* all = s.scratch(stride * m, type);
  const MPI_Aint extent = type.extent;
  for (int r = 0; r < m; ++r) s.recv(block(all, r, stride, extent), stride, type, r);
  s.fence();
  auto slot = [&](int r) { return block(all, r, stride, extent) + offset * extent; };
  s.copy(slot(m - 1), count, type, result, count, type);
  for (int r = m - 2; r >= 0; --r) s.reduce(slot(r), result, count);
  s.fence();
}

}  // namespace

int inter_in_place_error() {
  return errhan::make_error(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
}

int inter_barrier(Schedule& s) {
  Datatype& bytes = byte_type();
  for (int r = 0; r < remote_size(s); ++r) {
    s.send(nullptr, 0, bytes, r);
    s.recv(nullptr, 0, bytes, r);
  }
  s.fence();
  return MPI_SUCCESS;
}

int inter_bcast(Schedule& s, void* buf, MPI_Count count, Datatype& type, int root) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root == MPI_ROOT) {
    for (int r = 0; r < remote_size(s); ++r) s.send(buf, count, type, r);
  } else {
    s.recv(buf, count, type, root);
  }
  s.fence();
  return MPI_SUCCESS;
}

int inter_reduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
                 int root) {
  if (root == MPI_PROC_NULL || count == 0) return MPI_SUCCESS;
  if (sendbuf == MPI_IN_PLACE) return inter_in_place_error();
  if (root != MPI_ROOT) {
    s.send(sendbuf, count, type, root);
    s.fence();
    return MPI_SUCCESS;
  }
  gather_and_fold(s, recvbuf, count, type, 0, count);
  return MPI_SUCCESS;
}

int inter_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                    Datatype& type) {
  if (sendbuf == MPI_IN_PLACE) return inter_in_place_error();
  if (count == 0) return MPI_SUCCESS;
  for (int r = 0; r < remote_size(s); ++r) s.send(sendbuf, count, type, r);
  gather_and_fold(s, recvbuf, count, type, 0, count);
  return MPI_SUCCESS;
}

int inter_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf,
                         const std::vector<MPI_Count>& counts, Datatype& type) {
  if (sendbuf == MPI_IN_PLACE) return inter_in_place_error();
  MPI_Count total = 0, offset = 0;
  for (int i = 0; i < static_cast<int>(counts.size()); ++i) {
    if (i == s.rank()) offset = total;
    total += counts[i];
  }
  if (total == 0) return MPI_SUCCESS;
  for (int r = 0; r < remote_size(s); ++r) s.send(sendbuf, total, type, r);
  if (counts[s.rank()] == 0) {
    void* sink = s.scratch(total * remote_size(s), type);
    for (int r = 0; r < remote_size(s); ++r)
      s.recv(block(sink, r, total, type.extent), total, type, r);
    s.fence();
    return MPI_SUCCESS;
  }
  gather_and_fold(s, recvbuf, counts[s.rank()], type, offset, total);
  return MPI_SUCCESS;
}

int inter_gatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                  const std::vector<Block>& blocks, int root) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root == MPI_ROOT) {
    for (int r = 0; r < remote_size(s); ++r)
      s.recv(const_cast<void*>(blocks[r].buf), blocks[r].count, *blocks[r].type, r);
  } else {
    s.send(sendbuf, sendcount, *sendtype, root);
  }
  s.fence();
  return MPI_SUCCESS;
}

int inter_scatterv(Schedule& s, const std::vector<Block>& blocks, void* recvbuf,
                   MPI_Count recvcount, Datatype* recvtype, int root) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root == MPI_ROOT) {
    for (int r = 0; r < remote_size(s); ++r)
      s.send(blocks[r].buf, blocks[r].count, *blocks[r].type, r);
  } else {
    s.recv(recvbuf, recvcount, *recvtype, root);
  }
  s.fence();
  return MPI_SUCCESS;
}

int inter_allgatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                     const std::vector<Block>& recvs) {
  if (sendbuf == MPI_IN_PLACE) return inter_in_place_error();
  for (int r = 0; r < remote_size(s); ++r) {
    s.recv(const_cast<void*>(recvs[r].buf), recvs[r].count, *recvs[r].type, r);
    s.send(sendbuf, sendcount, *sendtype, r);
  }
  s.fence();
  return MPI_SUCCESS;
}

int inter_alltoallw(Schedule& s, const std::vector<Block>& sends, const std::vector<Block>& recvs) {
  if (sends.empty() && remote_size(s) > 0) return inter_in_place_error();
  for (int r = 0; r < remote_size(s); ++r) {
    s.recv(const_cast<void*>(recvs[r].buf), recvs[r].count, *recvs[r].type, r);
    s.send(sends[r].buf, sends[r].count, *sends[r].type, r);
  }
  s.fence();
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll
