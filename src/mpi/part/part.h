// Partitioned communication (MPI 4.1 chapter 4): what MPI_Start does for a
// partitioned request.
#pragma once

namespace stmpi::mpi {
struct Request;
}

namespace stmpi::mpi::part {

// Begins an epoch: a receive posts its receive; a send waits for its
// partitions to be marked ready.
[[nodiscard]] int start(Request* req);

}  // namespace stmpi::mpi::part
