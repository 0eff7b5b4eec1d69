// MPI_Barrier: dissemination. In round k every process signals the one
// 2^k ranks ahead and waits for the one 2^k behind; after ceil(log2 n)
// rounds each process has heard, directly or not, from every other.
#include "binding/gen/impl.h"
#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/pt2pt.h"

namespace stmpi::mpi::coll {

int barrier(Comm& comm) {
  const int n = comm.size;
  char token = 0;
  for (int distance = 1; distance < n; distance <<= 1) {
    const int to = (comm.rank + distance) % n;
    const int from = (comm.rank - distance + n) % n;
    if (int err =
            pt2pt::sendrecv(&token, 0, byte_type(), to, kTagBarrier, &token, 0, byte_type(), from,
                            kTagBarrier, comm, comm.coll_context_id(), MPI_STATUS_IGNORE);
        err != MPI_SUCCESS)
      return err;
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {

int barrier(mpi::Comm& comm) { return mpi::coll::barrier(comm); }

}  // namespace stmpi::impl
