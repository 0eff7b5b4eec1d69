// MPI_Allgather: ring. Each process first places its own block in the
// receive buffer; in step i it passes the block it got in step i-1 (its
// own at first) to the right neighbour and takes a new one from the left.
// n-1 steps, each moving one block per process, directly between the
// receive buffers in the receive datatype: no packing, no scratch memory.
#include "binding/gen/impl.h"
#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/pt2pt/pt2pt.h"

namespace stmpi::mpi::coll {

int allgather(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype, void* recvbuf,
              MPI_Count recvcount, Datatype& recvtype, Comm& comm) {
  const int n = comm.size;
  const int rank = comm.rank;
  const MPI_Aint extent = recvtype.extent;
  if (sendbuf != MPI_IN_PLACE) {
    if (int err = copy_convert(sendbuf, sendcount, *sendtype,
                               block(recvbuf, rank, recvcount, extent), recvcount, recvtype);
        err != MPI_SUCCESS)
      return err;
  }
  if (n == 1 || recvcount * recvtype.size == 0) return MPI_SUCCESS;
  const uint32_t context = comm.coll_context_id();
  const int right = (rank + 1) % n;
  const int left = (rank - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int outgoing = (rank - step + n) % n;
    const int incoming = (rank - step - 1 + n) % n;
    if (int err =
            pt2pt::sendrecv(block(recvbuf, outgoing, recvcount, extent), recvcount, recvtype, right,
                            kTagAllgather, block(recvbuf, incoming, recvcount, extent), recvcount,
                            recvtype, left, kTagAllgather, comm, context, MPI_STATUS_IGNORE);
        err != MPI_SUCCESS)
      return err;
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

int allgather_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                  MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  if (recvbuf == MPI_IN_PLACE)
    return mpi::errhan::make_error(MPI_ERR_BUFFER,
                                   "MPI_IN_PLACE is not a valid recvbuf for MPI_Allgather");
  return mpi::coll::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

}  // namespace

int allgather(const void* sendbuf, int sendcount, mpi::Datatype* sendtype, void* recvbuf,
              int recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int allgather_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

}  // namespace stmpi::impl
