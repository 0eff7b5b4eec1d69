// MPI_Reduce_scatter(_block) and their nonblocking and persistent forms.
//
// ring (commutative ops): every process starts with all its blocks; in
//   n - 1 steps around the ring each block collects every contribution
//   and ends at its owner (as in the first half of the ring allreduce).
// reduce_scatterv (any op): MPI_Reduce of the whole vector to rank 0
//   (operand order kept), then MPI_Scatterv of the blocks.
// MPI_IN_PLACE: the input is in recvbuf; the result lands at its start.
#include <numeric>

#include "mpi/coll/checks.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/inter.h"
#include "mpi/coll/launch.h"
#include "mpi/coll/ring.h"
#include "mpi/coll/settings.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi::coll {

int build_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf,
                         const std::vector<MPI_Count>& counts, Datatype& type) {
  if (s.comm().is_inter()) return inter_reduce_scatter(s, sendbuf, recvbuf, counts, type);
  int algorithm = -1;
  if (int err = choose(settings().reduce_scatter_algorithm, "REDUCE_SCATTER",
                       {"ring", "reduce_scatterv"}, &algorithm);
      err != MPI_SUCCESS)
    return err;
  const int n = s.size();
  const int rank = s.rank();
  std::vector<MPI_Count> displs(n);
  MPI_Count total = 0;
  for (int i = 0; i < n; ++i) {
    displs[i] = total;
    total += counts[i];
  }
  if (total == 0) return MPI_SUCCESS;
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (n == 1) {
    s.copy(input, counts[0], type, recvbuf, counts[0], type);
    s.fence();
    return MPI_SUCCESS;
  }
  if (algorithm < 0) algorithm = 0;
  if (algorithm == 0 && !s.reduction().commutative) algorithm = 1;
  const MPI_Aint extent = type.extent;
  void* acc = s.scratch(total, type);
  if (algorithm == 0) {
    s.copy(input, total, type, acc, total, type);
    void* tmp = s.scratch(total, type);
    ring_reduce_scatter(s, acc, tmp, counts, displs, type);
    s.copy(static_cast<char*>(acc) + displs[rank] * extent, counts[rank], type, recvbuf,
           counts[rank], type);
    s.fence();
    return MPI_SUCCESS;
  }
  if (int err = build_reduce(s, input, acc, total, type, 0); err != MPI_SUCCESS) return err;
  s.fence();
  std::vector<Block> blocks;
  if (rank == 0)
    for (int i = 0; i < n; ++i)
      blocks.push_back({static_cast<char*>(acc) + displs[i] * extent, counts[i], &type});
  return build_scatterv(s, blocks, recvbuf, counts[rank], &type, 0);
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

using mpi::coll::Mode;

int reduce_scatter_counts(const void* sendbuf, void* recvbuf, std::vector<MPI_Count> counts,
                          mpi::Datatype& datatype, mpi::Op& op, mpi::Comm& comm, Mode mode,
                          MPI_Request* request) {
  if (int err = mpi::coll::check_op(op, datatype); err != MPI_SUCCESS) return err;
  if (int err = mpi::coll::check_distinct(sendbuf, recvbuf, counts[comm.rank]); err != MPI_SUCCESS)
    return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    mpi::coll::hold_reduction(s, op, datatype);
    return mpi::coll::build_reduce_scatter(s, sendbuf, recvbuf, counts, datatype);
  });
}

}  // namespace

template <class Count>
int reduce_scatter_any(const void* sendbuf, void* recvbuf, const Count recvcounts[],
                       mpi::Datatype& datatype, mpi::Op& op, mpi::Comm& comm, Mode mode,
                       MPI_Request* request) {
  return reduce_scatter_counts(sendbuf, recvbuf,
                               std::vector<MPI_Count>(recvcounts, recvcounts + comm.size), datatype,
                               op, comm, mode, request);
}
template decltype(reduce_scatter_any<int>) reduce_scatter_any<int>;
template decltype(reduce_scatter_any<MPI_Count>) reduce_scatter_any<MPI_Count>;

int reduce_scatter_block_any(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                             mpi::Datatype& datatype, mpi::Op& op, mpi::Comm& comm, Mode mode,
                             MPI_Request* request) {
  return reduce_scatter_counts(sendbuf, recvbuf, std::vector<MPI_Count>(comm.size, recvcount),
                               datatype, op, comm, mode, request);
}

}  // namespace stmpi::impl
