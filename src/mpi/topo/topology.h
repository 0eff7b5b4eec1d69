// Process topologies (MPI 4.1 chapter 8): the topology a communicator
// carries (Comm::topology, shared by its duplicates, dropped with it) and
// the neighbor lists the neighborhood collectives use.
#pragma once

#include <vector>

#include <mpi.h>

namespace stmpi::mpi {

struct Comm;

struct Topology {
  int kind = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH

  // MPI_CART: row-major, the last dimension varies fastest.
  std::vector<int> dims;
  std::vector<int> periods;  // 0 or 1 per dimension

  // MPI_GRAPH: the arguments of MPI_Graph_create.
  std::vector<int> index;
  std::vector<int> edges;

  // MPI_DIST_GRAPH: this process's adjacency.
  std::vector<int> sources;
  std::vector<int> source_weights;
  std::vector<int> destinations;
  std::vector<int> destination_weights;
  bool weighted = false;

  int cart_size() const;
  // Coordinates of `rank` (0 <= rank < cart_size()).
  void cart_coords(int rank, int* coords) const;
  // Rank at `coords`, each already inside 0..dims[i]-1.
  int cart_rank(const int* coords) const;
  // MPI_Cart_shift: the ranks `disp` steps down and up dimension
  // `direction` from `rank`, MPI_PROC_NULL off a non-periodic edge.
  void cart_shift(int rank, int direction, int disp, int* source, int* dest) const;
};

namespace topo {

// The topology of `comm` if it has one of `kind` (MPI_UNDEFINED: any kind),
// else nullptr and *err = MPI_ERR_TOPOLOGY naming `function`'s argument.
const Topology* topology_of(const Comm& comm, int kind, int* err);

// The neighbors of this process in `comm`'s topology, in the order of the
// neighborhood collectives' buffers (MPI 4.1 section 8.6): a Cartesian
// topology lists, per dimension, the rank below then the rank above
// (MPI_PROC_NULL off an edge), both as sources and destinations; a graph
// lists the node's edges as both; a distributed graph its sources and
// destinations.
[[nodiscard]] int neighbors(const Comm& comm, std::vector<int>* sources,
                            std::vector<int>* destinations);

}  // namespace topo
}  // namespace stmpi::mpi
