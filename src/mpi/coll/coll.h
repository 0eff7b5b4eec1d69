// Collective algorithms over point-to-point messages on a communicator's
// collective context (Comm::coll_context_id()), shared by the MPI calls
// and by the library itself (context id agreement, Comm_split). Counts are
// MPI_Count so the `_c` calls share the code. README.md lists the
// algorithms.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <mpi.h>

namespace stmpi::mpi {
struct Comm;
struct Datatype;
struct Op;
}  // namespace stmpi::mpi

namespace stmpi::mpi::coll {

// One tag per collective kind. Collectives on one communicator are issued
// in the same order everywhere and matching is FIFO per (context, source,
// tag), so a tag need not tell two calls of one kind apart; it only keeps
// the kinds apart. User traffic lives on the other context.
enum Tag : int {
  kTagBarrier = 1,
  kTagBcast,
  kTagReduce,
  kTagAllreduce,
  kTagGather,
  kTagScatter,
  kTagAllgather,
  kTagAlltoall,
};

// The combining step of a reduction: inout[i] = in[i] (op) inout[i] for
// `count` instances of the reduction's datatype.
struct Reduction {
  bool commutative = true;
  std::function<int(const void* in, void* inout, MPI_Count count)> apply;
};

// The Reduction of an MPI_Op on `type` (both outlive the Reduction).
Reduction reduction_of(const Op& op, const Datatype& type);

// Room for `count` instances of `type`, laid out as in a user buffer: the
// pointer accounts for the type's true lower bound, so data lands inside
// the storage whatever the type's displacements.
class ScratchBuffer {
 public:
  ScratchBuffer(MPI_Count count, const Datatype& type);
  void* get() const { return base_; }

 private:
  std::vector<char> storage_;
  void* base_ = nullptr;
};

Datatype& byte_type();

// Address of block `index` of a buffer of blocks of `count` instances each.
inline char* block(void* buf, MPI_Count index, MPI_Count count, MPI_Aint extent) {
  return static_cast<char*>(buf) + index * count * extent;
}
inline const char* block(const void* buf, MPI_Count index, MPI_Count count, MPI_Aint extent) {
  return static_cast<const char*>(buf) + index * count * extent;
}

// Copies `count` instances of `type` from src to dst.
void copy_same(const void* src, void* dst, MPI_Count count, const Datatype& type);
// Copies data described by (src, scount, stype) into (dst, rcount, rtype);
// MPI_ERR_TRUNCATE when it does not fit.
[[nodiscard]] int copy_convert(const void* src, MPI_Count scount, const Datatype& stype, void* dst,
                               MPI_Count rcount, const Datatype& rtype);

// The algorithms. Arguments were checked by the caller; a datatype that
// is not significant (MPI_IN_PLACE, root-only arguments elsewhere) may be
// null.
[[nodiscard]] int barrier(Comm& comm);
[[nodiscard]] int bcast(void* buf, MPI_Count count, Datatype& type, int root, Comm& comm);
[[nodiscard]] int reduce(const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
                         const Reduction& reduction, int root, Comm& comm);
[[nodiscard]] int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
                            const Reduction& reduction, Comm& comm);
[[nodiscard]] int gather(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                         void* recvbuf, MPI_Count recvcount, Datatype* recvtype, int root,
                         Comm& comm);
[[nodiscard]] int scatter(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                          void* recvbuf, MPI_Count recvcount, Datatype* recvtype, int root,
                          Comm& comm);
[[nodiscard]] int allgather(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                            void* recvbuf, MPI_Count recvcount, Datatype& recvtype, Comm& comm);
[[nodiscard]] int alltoall(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                           void* recvbuf, MPI_Count recvcount, Datatype& recvtype, Comm& comm);

}  // namespace stmpi::mpi::coll
