// MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init.
//
// dissemination: in round k (distance 2^k) each process sends an empty
// message to rank + 2^k and receives one from rank - 2^k; after
// ceil(log2 n) rounds every process has heard, directly or not, from all.
// linear: everyone reports to rank 0, which then releases everyone.
#include "mpi/coll/coll.h"
#include "mpi/coll/direct.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/inter.h"
#include "mpi/coll/launch.h"
#include "mpi/coll/node.h"
#include "mpi/coll/settings.h"

namespace stmpi::mpi::coll {

int build_barrier(Schedule& s) {
  if (s.comm().is_inter()) return inter_barrier(s);
  const int n = s.size();
  const int rank = s.rank();
  int algorithm = -1;
  if (int err = choose(settings().barrier_algorithm, "BARRIER",
                       {"dissemination", "linear", "node_aware"}, &algorithm);
      err != MPI_SUCCESS)
    return err;
  if (algorithm == 2 || (algorithm < 0 && node_aware_auto(s.comm(), 0, true))) {
    node_barrier(s);
    return MPI_SUCCESS;
  }
  Datatype& bytes = byte_type();
  if (algorithm == 1) {
    if (rank == 0) {
      for (int r = 1; r < n; ++r) s.recv(nullptr, 0, bytes, r);
      s.fence();
      for (int r = 1; r < n; ++r) s.send(nullptr, 0, bytes, r);
    } else {
      s.send(nullptr, 0, bytes, 0);
      s.recv(nullptr, 0, bytes, 0);
    }
    s.fence();
    return MPI_SUCCESS;
  }
  for (int distance = 1; distance < n; distance <<= 1) {
    s.send(nullptr, 0, bytes, (rank + distance) % n);
    s.recv(nullptr, 0, bytes, (rank - distance + n) % n);
    s.fence();
  }
  return MPI_SUCCESS;
}

int barrier(Comm& comm) {
  return launch(comm, Mode::kBlocking, nullptr, [](Schedule& s) { return build_barrier(s); });
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {

using mpi::coll::launch;
using mpi::coll::Mode;
using mpi::coll::Schedule;

int barrier_any(mpi::Comm& comm, Mode mode, MPI_Request* request) {
  if (mode == Mode::kBlocking) {
    if (int err = MPI_SUCCESS; mpi::coll::direct_barrier(comm, &err)) return err;
    return mpi::coll::barrier(comm);
  }
  return launch(comm, mode, request, [](Schedule& s) { return mpi::coll::build_barrier(s); });
}

}  // namespace stmpi::impl
