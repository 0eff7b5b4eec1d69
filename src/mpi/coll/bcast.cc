// MPI_Bcast: binomial tree rooted at `root`. Ranks are taken relative to
// the root; relative rank v receives from v minus its lowest set bit and
// forwards to v + 2^j for every 2^j below that bit (all of them when v is
// the root). ceil(log2 n) steps; every process sends the whole message.
#include <vector>

#include "binding/gen/impl.h"
#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::coll {

int bcast(void* buf, MPI_Count count, Datatype& type, int root, Comm& comm) {
  const int n = comm.size;
  if (n == 1 || count == 0) return MPI_SUCCESS;
  const uint32_t context = comm.coll_context_id();
  const int relative = (comm.rank - root + n) % n;
  auto actual = [&](int v) { return (v + root) % n; };

  int mask = 1;
  while (mask < n) {
    if (relative & mask) {
      if (int err = pt2pt::recv(buf, count, type, actual(relative - mask), kTagBcast, comm, context,
                                MPI_STATUS_IGNORE);
          err != MPI_SUCCESS)
        return err;
      break;
    }
    mask <<= 1;
  }
  // Children: relative + m for each m below the bit we received on.
  std::vector<Request*> sends;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask >= n) continue;
    Request* req = nullptr;
    if (int err = pt2pt::isend(buf, count, type, actual(relative + mask), kTagBcast, comm, context,
                               dev::SendMode::kStandard, &req);
        err != MPI_SUCCESS) {
      (void)pt2pt::wait_all(static_cast<int>(sends.size()), sends.data());
      return err;
    }
    sends.push_back(req);
  }
  return pt2pt::wait_all(static_cast<int>(sends.size()), sends.data());
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {

int bcast(void* buffer, int count, mpi::Datatype& datatype, int root, mpi::Comm& comm) {
  return mpi::coll::bcast(buffer, count, datatype, root, comm);
}

int bcast_c(void* buffer, MPI_Count count, mpi::Datatype& datatype, int root, mpi::Comm& comm) {
  return mpi::coll::bcast(buffer, count, datatype, root, comm);
}

}  // namespace stmpi::impl
