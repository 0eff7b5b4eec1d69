// How a collective call runs: blocking, nonblocking (MPI_I*) or persistent
// (MPI_*_init); see launch.h.
#pragma once

namespace stmpi::mpi::coll {

enum class Mode { kBlocking, kNonblocking, kPersistent };

}  // namespace stmpi::mpi::coll
