// The exchange behind the neighborhood collectives: one block from or to
// each neighbor, in the order topo::neighbors gives.
#pragma once

#include <cstddef>
#include <vector>

#include <mpi.h>

namespace stmpi::mpi {
struct Comm;
struct Datatype;
}  // namespace stmpi::mpi

namespace stmpi::mpi::coll {
enum class Mode;
}  // namespace stmpi::mpi::coll

namespace stmpi::mpi::topo {

struct NeighborBlock {
  void* buf = nullptr;
  MPI_Count count = 0;
  Datatype* type = nullptr;
};

// Sends sends[i] to destination i and receives recvs[i] from source i, as
// a schedule run by `mode` (coll/launch.h; `request` unless blocking).
// MPI_ERR_TOPOLOGY without a topology.
[[nodiscard]] int neighbor_exchange(Comm& comm, const std::vector<NeighborBlock>& sends,
                                    const std::vector<NeighborBlock>& recvs, coll::Mode mode,
                                    MPI_Request* request);
// The send slot to issue k-th (see neighbor.cc): k ^ 1 in a Cartesian
// topology (2 slots per dimension, so this permutes within a dimension).
std::size_t send_order(bool cartesian, std::size_t k);
[[nodiscard]] int neighbor_degrees(Comm& comm, int* indegree, int* outdegree);

}  // namespace stmpi::mpi::topo
