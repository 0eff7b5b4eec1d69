// Partitioned communication (MPI 4.1 chapter 4): what MPI_Start does for a
// partitioned request.
#pragma once

#include <cstdint>

namespace stmpi::mpi {
struct Request;
}  // namespace stmpi::mpi

namespace stmpi::mpi::part {

// How many partitioned send (or receive) inits this process made before
// for (context, peer, tag): the pairing number of the next one.
int next_init_number(uint32_t context, int peer, int tag, bool send);

// Forgets the init numbers of a context whose communicator is gone: the id
// can be reused by a new communicator, whose pairing starts from zero on
// every process (a stale count on one side would never match).
void forget_context(uint32_t context);

// Begins an epoch: a receive posts its receive; a send waits for its
// partitions to be marked ready.
[[nodiscard]] int start(Request* req);

}  // namespace stmpi::mpi::part
