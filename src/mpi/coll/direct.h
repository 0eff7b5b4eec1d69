// Small blocking collectives without a Schedule: the same messages as the
// schedule's algorithm (so processes taking either path still match), sent
// straight through point-to-point with no allocation, no step list and no
// type-erased reduction. A blocking 8-byte allreduce on 2 processes is one
// send, one receive and one local combine.
#pragma once

#include <mpi.h>

namespace stmpi::mpi {
struct Comm;
struct Datatype;
struct Op;
}  // namespace stmpi::mpi

namespace stmpi::mpi::coll {

// Each returns true when it ran the collective (its MPI error code in
// *err), false when the call needs the general path (another algorithm
// chosen, a type or size it does not handle); then nothing was done.
[[nodiscard]] bool direct_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                                    Datatype& type, Op& op, Comm& comm, int* err);
[[nodiscard]] bool direct_bcast(void* buf, MPI_Count count, Datatype& type, int root, Comm& comm,
                                int* err);
[[nodiscard]] bool direct_barrier(Comm& comm, int* err);
// Alltoall where the schedule would use linear (not in place, up to
// kMaxDirectPeers processes); allgather where it would use recursive
// doubling.
[[nodiscard]] bool direct_alltoall(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                                   void* recvbuf, MPI_Count recvcount, Datatype& recvtype,
                                   Comm& comm, int* err);
[[nodiscard]] bool direct_allgather(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                                    void* recvbuf, MPI_Count recvcount, Datatype& recvtype,
                                    Comm& comm, int* err);

}  // namespace stmpi::mpi::coll
