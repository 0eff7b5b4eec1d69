// Collective algorithms over point-to-point messages on a communicator's
// collective context (Comm::coll_context_id()), shared by the MPI calls
// and by the library itself (context id agreement, Comm_split). Counts are
// MPI_Count so the `_c` calls share the code. README.md lists the
// algorithms.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <mpi.h>

namespace stmpi::mpi {
struct Comm;
struct Datatype;
struct Op;
}  // namespace stmpi::mpi

namespace stmpi::mpi::coll {

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
// the storage whatever the type's displacements. The storage is not
// zeroed: every algorithm writes a scratch area before it reads it, and
// clearing a megabyte costs as much as moving it.
class ScratchBuffer {
 public:
  ScratchBuffer(MPI_Count count, const Datatype& type);
  void* get() const { return base_; }

 private:
  std::unique_ptr<char[]> storage_;
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

class Schedule;

// Per-process block descriptions of the v/w collectives: where a block
// is, how many instances of which type.
struct Block {
  const void* buf = nullptr;
  MPI_Count count = 0;
  Datatype* type = nullptr;
};

// The algorithms, as schedule builders: each appends its steps to `s`
// (on s.comm()) and picks an algorithm by the settings (settings.h).
// Arguments were checked by the caller; a datatype that is not
// significant (MPI_IN_PLACE, root-only arguments elsewhere) may be null.
// Reductions use s.reduction(). They return MPI_ERR_ARG only for an
// unknown STMPI_COLL_*_ALGORITHM value.
[[nodiscard]] int build_barrier(Schedule& s);
[[nodiscard]] int build_bcast(Schedule& s, void* buf, MPI_Count count, Datatype& type, int root);
[[nodiscard]] int build_reduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                               Datatype& type, int root);
[[nodiscard]] int build_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                                  Datatype& type);
[[nodiscard]] int build_gather(Schedule& s, const void* sendbuf, MPI_Count sendcount,
                               Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                               Datatype* recvtype, int root);
[[nodiscard]] int build_scatter(Schedule& s, const void* sendbuf, MPI_Count sendcount,
                                Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                                Datatype* recvtype, int root);
// v forms: `blocks` (significant at the root only) has one Block per rank.
[[nodiscard]] int build_gatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount,
                                Datatype* sendtype, const std::vector<Block>& blocks, int root);
[[nodiscard]] int build_scatterv(Schedule& s, const std::vector<Block>& blocks, void* recvbuf,
                                 MPI_Count recvcount, Datatype* recvtype, int root);
[[nodiscard]] int build_allgather(Schedule& s, const void* sendbuf, MPI_Count sendcount,
                                  Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                                  Datatype& recvtype);
// Allgatherv: counts and displacements in instances of recvtype.
[[nodiscard]] int build_allgatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount,
                                   Datatype* sendtype, void* recvbuf,
                                   const std::vector<MPI_Count>& counts,
                                   const std::vector<MPI_Count>& displs, Datatype& recvtype);
[[nodiscard]] int build_alltoall(Schedule& s, const void* sendbuf, MPI_Count sendcount,
                                 Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                                 Datatype& recvtype);
// Alltoallv/w: one send and one receive Block per rank. In place: `sends`
// empty; the data to send is read from the receive blocks first.
[[nodiscard]] int build_alltoallw(Schedule& s, std::vector<Block> sends,
                                  const std::vector<Block>& recvs);
// Reduce_scatter: rank i gets `counts[i]` instances; the input holds the
// sum of counts. In place: sendbuf == MPI_IN_PLACE, input in recvbuf.
[[nodiscard]] int build_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf,
                                       const std::vector<MPI_Count>& counts, Datatype& type);
[[nodiscard]] int build_scan(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                             Datatype& type, bool exclusive);

// Blocking collectives for the library's own use (context ids, windows,
// Comm_split): build and run on `comm`.
[[nodiscard]] int barrier(Comm& comm);
[[nodiscard]] int bcast(void* buf, MPI_Count count, Datatype& type, int root, Comm& comm);
[[nodiscard]] int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
                            const Reduction& reduction, Comm& comm);
[[nodiscard]] int allgather(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                            void* recvbuf, MPI_Count recvcount, Datatype& recvtype, Comm& comm);

}  // namespace stmpi::mpi::coll
