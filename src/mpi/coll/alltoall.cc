// MPI_Alltoall: pairwise exchange, one peer per step, straight between the
// user's buffers. With n a power of two, step i pairs rank r with r XOR i;
// otherwise r sends to r+i and receives from r-i (mod n). n-1 steps.
//
// MPI_IN_PLACE: block j of recvbuf is both what goes to j and where j's
// block lands, so each exchange must be with one peer in both directions
// and the outgoing block is copied aside first. Pairs (i, j), i < j, are
// visited in lexicographic order, which every process follows, so a
// process only ever waits for a pair that comes earlier: no deadlock.
#include "binding/gen/impl.h"
#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/pt2pt/pt2pt.h"

namespace stmpi::mpi::coll {
namespace {

int alltoall_in_place(void* recvbuf, MPI_Count recvcount, Datatype& recvtype, Comm& comm) {
  const int n = comm.size;
  const int rank = comm.rank;
  const uint32_t context = comm.coll_context_id();
  ScratchBuffer outgoing(recvcount, recvtype);
  auto exchange = [&](int peer) {
    char* slot = block(recvbuf, peer, recvcount, recvtype.extent);
    copy_same(slot, outgoing.get(), recvcount, recvtype);
    return pt2pt::sendrecv(outgoing.get(), recvcount, recvtype, peer, kTagAlltoall, slot, recvcount,
                           recvtype, peer, kTagAlltoall, comm, context, MPI_STATUS_IGNORE);
  };
  for (int i = 0; i < n; ++i) {
    if (i == rank) {
      for (int j = i + 1; j < n; ++j)
        if (int err = exchange(j); err != MPI_SUCCESS) return err;
    } else if (i < rank) {
      // Pair (i, rank) is this process's only pair with first element i.
      if (int err = exchange(i); err != MPI_SUCCESS) return err;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace

int alltoall(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype, void* recvbuf,
             MPI_Count recvcount, Datatype& recvtype, Comm& comm) {
  const int n = comm.size;
  const int rank = comm.rank;
  if (sendbuf == MPI_IN_PLACE) {
    if (n == 1 || recvcount * recvtype.size == 0) return MPI_SUCCESS;
    return alltoall_in_place(recvbuf, recvcount, recvtype, comm);
  }
  const MPI_Aint sextent = sendtype->extent;
  const MPI_Aint rextent = recvtype.extent;
  if (int err = copy_convert(block(sendbuf, rank, sendcount, sextent), sendcount, *sendtype,
                             block(recvbuf, rank, recvcount, rextent), recvcount, recvtype);
      err != MPI_SUCCESS)
    return err;
  const uint32_t context = comm.coll_context_id();
  const bool power_of_two = (n & (n - 1)) == 0;
  for (int step = 1; step < n; ++step) {
    const int dest = power_of_two ? rank ^ step : (rank + step) % n;
    const int source = power_of_two ? rank ^ step : (rank - step + n) % n;
    if (int err =
            pt2pt::sendrecv(block(sendbuf, dest, sendcount, sextent), sendcount, *sendtype, dest,
                            kTagAlltoall, block(recvbuf, source, recvcount, rextent), recvcount,
                            recvtype, source, kTagAlltoall, comm, context, MPI_STATUS_IGNORE);
        err != MPI_SUCCESS)
      return err;
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

int alltoall_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                 MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  if (recvbuf == MPI_IN_PLACE)
    return mpi::errhan::make_error(MPI_ERR_BUFFER,
                                   "MPI_IN_PLACE is not a valid recvbuf for MPI_Alltoall");
  return mpi::coll::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

}  // namespace

int alltoall(const void* sendbuf, int sendcount, mpi::Datatype* sendtype, void* recvbuf,
             int recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int alltoall_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
               MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

}  // namespace stmpi::impl
