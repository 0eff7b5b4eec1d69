// Collectives on intercommunicators (MPI 4.1 section 6.2.2): data moves
// between the two groups; ranks in the steps are remote ranks. Rooted
// operations take `root` as MPI_ROOT (the root), MPI_PROC_NULL (the other
// members of the root's group) or the root's rank in the remote group.
#pragma once

#include <vector>

#include <mpi.h>

#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"

namespace stmpi::mpi::coll {

// Whether this process is the root of a rooted collective.
inline bool is_root(const Comm& comm, int root) {
  return comm.is_inter() ? root == MPI_ROOT : comm.rank == root;
}

// MPI_ERR_BUFFER: MPI_IN_PLACE is not allowed on intercommunicators.
[[nodiscard]] int inter_in_place_error();

[[nodiscard]] int inter_barrier(Schedule& s);
[[nodiscard]] int inter_bcast(Schedule& s, void* buf, MPI_Count count, Datatype& type, int root);
// Reduce: the root combines the remote group's contributions in rank order.
[[nodiscard]] int inter_reduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                               Datatype& type, int root);
// Allreduce: each process gets the reduction of the remote group's data.
[[nodiscard]] int inter_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                                  Datatype& type);
// Reduce_scatter: process i gets block i (counts: the local group's, the
// same total in both groups) of the reduction of the remote group's data.
[[nodiscard]] int inter_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf,
                                       const std::vector<MPI_Count>& counts, Datatype& type);
// Gather(v)/Scatter(v): `blocks` (at MPI_ROOT) has one Block per remote rank.
[[nodiscard]] int inter_gatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount,
                                Datatype* sendtype, const std::vector<Block>& blocks, int root);
[[nodiscard]] int inter_scatterv(Schedule& s, const std::vector<Block>& blocks, void* recvbuf,
                                 MPI_Count recvcount, Datatype* recvtype, int root);
// Allgather(v): my block to every remote process, block r from remote r.
[[nodiscard]] int inter_allgatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount,
                                   Datatype* sendtype, const std::vector<Block>& recvs);
// Alltoall(v,w): sends[r] to remote r, recvs[r] from remote r.
[[nodiscard]] int inter_alltoallw(Schedule& s, const std::vector<Block>& sends,
                                  const std::vector<Block>& recvs);

}  // namespace stmpi::mpi::coll
