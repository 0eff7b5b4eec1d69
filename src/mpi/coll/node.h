// Node-aware (two-level) collectives: the processes of each node first
// work among themselves (the shared-memory transport), then one leader
// per node talks across nodes, then the node finishes locally.
#pragma once

#include <cstddef>
#include <vector>

#include <mpi.h>

namespace stmpi::mpi {
struct Comm;
struct Datatype;
}  // namespace stmpi::mpi

namespace stmpi::mpi::coll {

class Schedule;

// Where a communicator's processes run, from the device's peer table;
// computed once per communicator and kept in Comm::node_layout.
struct NodeLayout {
  // Several nodes, and more than one process on at least one of them: the
  // case node-aware algorithms are for.
  bool hierarchical = false;
  std::vector<int> node_of;               // rank -> node index (numbered by lowest rank)
  std::vector<int> leaders;               // node index -> its lowest rank
  std::vector<std::vector<int>> members;  // node index -> its ranks, ascending
};
const NodeLayout& node_layout(Comm& comm);

// Whether "auto" picks the node-aware algorithm for `bytes` of data
// (reductions only with a commutative op): an intracommunicator over a
// hierarchical layout, below STMPI_COLL_NODE_AWARE_MAX_BYTES.
bool node_aware_auto(Comm& comm, std::size_t bytes, bool commutative);

// The builders (on s.comm(), any layout; reductions need a commutative op).
void node_barrier(Schedule& s);
void node_bcast(Schedule& s, void* buf, MPI_Count count, Datatype& type, int root);
void node_reduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
                 int root);
void node_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                    Datatype& type);

}  // namespace stmpi::mpi::coll
