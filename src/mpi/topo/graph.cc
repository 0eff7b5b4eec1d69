// Graph and distributed graph topologies (MPI 4.1 sections 8.5.3-8.5.5):
// Graph_create/get/neighbors(_count)/map, Graphdims_get,
// Dist_graph_create(_adjacent), Dist_graph_neighbors(_count), and the
// MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY objects MPICH's library exports.
//
// reorder is accepted and ignored (ranks stay those of comm_old).
// MPI_Dist_graph_create sends every edge to both its ends: edges arrive
// grouped by the process that named them, in rank order, each group in the
// caller's order, so the j-th edge from s to d is the j-th one at s and at
// d and the neighborhood collectives pair them up.
#include <memory>
#include <vector>

#include <mpi.h>

#include "mpi/coll/coll.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/request.h"
#include "mpi/topo/impl_topo.h"
#include "mpi/topo/topology.h"

namespace {
int g_unweighted_marker;
int g_weights_empty_marker;
}  // namespace

// Exported (mpi.h declares them with default visibility), as MPICH's library does.
int* const MPI_UNWEIGHTED = &g_unweighted_marker;
int* const MPI_WEIGHTS_EMPTY = &g_weights_empty_marker;

namespace stmpi::impl {
namespace {

using mpi::Topology;
using mpi::errhan::make_error;

constexpr int kTagDistGraphEdges = 0x7300;

int intra_only(const mpi::Comm& comm) {
  return make_error(MPI_ERR_COMM,
                    "comm_old (0x%x) is an intercommunicator; topologies need an "
                    "intracommunicator",
                    static_cast<unsigned>(comm.handle));
}

// Copies weights, which may be MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY; checks
// them non-negative.
int take_weights(const int* weights, int degree, const char* arg, std::vector<int>* out,
                 bool* weighted) {
  if (weights == MPI_UNWEIGHTED) {
    *weighted = false;
    out->assign(static_cast<std::size_t>(degree), 1);
    return MPI_SUCCESS;
  }
  if (weights == MPI_WEIGHTS_EMPTY) {
    if (degree > 0)
      return make_error(MPI_ERR_ARG, "%s is MPI_WEIGHTS_EMPTY but the degree is %d", arg, degree);
    out->clear();
    return MPI_SUCCESS;
  }
  if (degree > 0 && weights == nullptr)
    return make_error(MPI_ERR_ARG, "%s is NULL with degree %d", arg, degree);
  for (int i = 0; i < degree; ++i)
    if (weights[i] < 0)
      return make_error(MPI_ERR_ARG, "%s[%d] = %d is negative", arg, i, weights[i]);
  out->assign(weights, weights + degree);
  return MPI_SUCCESS;
}

int check_ranks(const int* ranks, int count, int size, const char* arg) {
  if (count > 0 && ranks == nullptr)
    return make_error(MPI_ERR_ARG, "%s is NULL with %d entries", arg, count);
  for (int i = 0; i < count; ++i)
    if (ranks[i] < 0 || ranks[i] >= size)
      return make_error(MPI_ERR_RANK, "%s[%d] = %d is not a rank of comm_old (size %d)", arg, i,
                        ranks[i], size);
  return MPI_SUCCESS;
}

int check_graph(int nnodes, const int index[], const int edges[], int limit, const char* function) {
  if (nnodes < 0) return make_error(MPI_ERR_ARG, "%s: nnodes = %d is negative", function, nnodes);
  if (nnodes > limit)
    return make_error(MPI_ERR_TOPOLOGY, "%s: nnodes = %d is larger than the communicator (size %d)",
                      function, nnodes, limit);
  if (nnodes == 0) return MPI_SUCCESS;
  if (index == nullptr) return make_error(MPI_ERR_ARG, "%s: index is NULL", function);
  for (int i = 0; i < nnodes; ++i) {
    const int before = i == 0 ? 0 : index[i - 1];
    if (index[i] < before)
      return make_error(MPI_ERR_ARG, "%s: index[%d] = %d is less than the entry before (%d)",
                        function, i, index[i], before);
  }
  const int nedges = index[nnodes - 1];
  if (nedges > 0 && edges == nullptr) return make_error(MPI_ERR_ARG, "%s: edges is NULL", function);
  for (int i = 0; i < nedges; ++i)
    if (edges[i] < 0 || edges[i] >= nnodes)
      return make_error(MPI_ERR_ARG, "%s: edges[%d] = %d is not a node (0..%d)", function, i,
                        edges[i], nnodes - 1);
  return MPI_SUCCESS;
}

// Neighbors of `rank` in a graph topology.
void graph_adjacent(const Topology& t, int rank, const int** first, int* count) {
  const int begin = rank == 0 ? 0 : t.index[rank - 1];
  *first = t.edges.data() + begin;
  *count = t.index[rank] - begin;
}

}  // namespace

int graph_create(mpi::Comm& comm_old, int nnodes, const int index[], const int edges[], int reorder,
                 MPI_Comm* comm_graph) {
  (void)reorder;
  if (comm_old.is_inter()) return intra_only(comm_old);
  if (int err = check_graph(nnodes, index, edges, comm_old.size, "MPI_Graph_create");
      err != MPI_SUCCESS)
    return err;
  auto topology = std::make_shared<Topology>();
  topology->kind = MPI_GRAPH;
  topology->index.assign(index, index + nnodes);
  if (nnodes > 0) topology->edges.assign(edges, edges + index[nnodes - 1]);
  const int color = comm_old.rank < nnodes ? 0 : MPI_UNDEFINED;
  if (int err = comm_split(comm_old, color, comm_old.rank, comm_graph); err != MPI_SUCCESS)
    return err;
  if (*comm_graph != MPI_COMM_NULL) mpi::comm_get(*comm_graph)->topology = std::move(topology);
  return MPI_SUCCESS;
}

int graphdims_get(mpi::Comm& comm, int* nnodes, int* nedges) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_GRAPH, &err);
  if (t == nullptr) return err;
  *nnodes = static_cast<int>(t->index.size());
  *nedges = static_cast<int>(t->edges.size());
  return MPI_SUCCESS;
}

int graph_get(mpi::Comm& comm, int maxindex, int maxedges, int index[], int edges[]) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_GRAPH, &err);
  if (t == nullptr) return err;
  const int nnodes = static_cast<int>(t->index.size());
  const int nedges = static_cast<int>(t->edges.size());
  if (maxindex < nnodes || maxedges < nedges)
    return make_error(MPI_ERR_ARG,
                      "maxindex = %d, maxedges = %d: the graph has %d nodes and %d "
                      "edges",
                      maxindex, maxedges, nnodes, nedges);
  if ((nnodes > 0 && index == nullptr) || (nedges > 0 && edges == nullptr))
    return make_error(MPI_ERR_ARG, "index and edges must not be NULL");
  for (int i = 0; i < nnodes; ++i) index[i] = t->index[i];
  for (int i = 0; i < nedges; ++i) edges[i] = t->edges[i];
  return MPI_SUCCESS;
}

int graph_neighbors_count(mpi::Comm& comm, int rank, int* nneighbors) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_GRAPH, &err);
  if (t == nullptr) return err;
  if (rank < 0 || rank >= static_cast<int>(t->index.size()))
    return make_error(MPI_ERR_RANK, "rank = %d is not a node of the graph (0..%zu)", rank,
                      t->index.size() - 1);
  const int* first;
  graph_adjacent(*t, rank, &first, nneighbors);
  return MPI_SUCCESS;
}

int graph_neighbors(mpi::Comm& comm, int rank, int maxneighbors, int neighbors[]) {
  int count = 0;
  if (int err = graph_neighbors_count(comm, rank, &count); err != MPI_SUCCESS) return err;
  if (maxneighbors < count)
    return make_error(MPI_ERR_ARG, "maxneighbors = %d but rank %d has %d neighbors", maxneighbors,
                      rank, count);
  if (count > 0 && neighbors == nullptr) return make_error(MPI_ERR_ARG, "neighbors is NULL");
  const int* first;
  graph_adjacent(*comm.topology, rank, &first, &count);
  for (int i = 0; i < count; ++i) neighbors[i] = first[i];
  return MPI_SUCCESS;
}

int graph_map(mpi::Comm& comm, int nnodes, const int index[], const int edges[], int* newrank) {
  if (comm.is_inter()) return intra_only(comm);
  if (int err = check_graph(nnodes, index, edges, comm.size, "MPI_Graph_map"); err != MPI_SUCCESS)
    return err;
  *newrank = comm.rank < nnodes ? comm.rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int dist_graph_create_adjacent(mpi::Comm& comm_old, int indegree, const int sources[],
                               const int sourceweights[], int outdegree, const int destinations[],
                               const int destweights[], MPI_Info info, int reorder,
                               MPI_Comm* comm_dist_graph) {
  (void)info;
  (void)reorder;
  if (comm_old.is_inter()) return intra_only(comm_old);
  if (indegree < 0 || outdegree < 0)
    return make_error(MPI_ERR_ARG, "indegree = %d, outdegree = %d: degrees must not be negative",
                      indegree, outdegree);
  if (int err = check_ranks(sources, indegree, comm_old.size, "sources"); err != MPI_SUCCESS)
    return err;
  if (int err = check_ranks(destinations, outdegree, comm_old.size, "destinations");
      err != MPI_SUCCESS)
    return err;
  auto topology = std::make_shared<Topology>();
  topology->kind = MPI_DIST_GRAPH;
  topology->weighted = true;
  bool weighted_out = true;
  if (int err = take_weights(sourceweights, indegree, "sourceweights", &topology->source_weights,
                             &topology->weighted);
      err != MPI_SUCCESS)
    return err;
  if (int err = take_weights(destweights, outdegree, "destweights", &topology->destination_weights,
                             &weighted_out);
      err != MPI_SUCCESS)
    return err;
  topology->weighted = topology->weighted && weighted_out;
  topology->sources.assign(sources, sources + indegree);
  topology->destinations.assign(destinations, destinations + outdegree);
  if (int err = comm_dup(comm_old, comm_dist_graph); err != MPI_SUCCESS) return err;
  mpi::comm_get(*comm_dist_graph)->topology = std::move(topology);
  return MPI_SUCCESS;
}

int dist_graph_create(mpi::Comm& comm_old, int n, const int sources[], const int degrees[],
                      const int destinations[], const int weights[], MPI_Info info, int reorder,
                      MPI_Comm* comm_dist_graph) {
  (void)info;
  (void)reorder;
  if (comm_old.is_inter()) return intra_only(comm_old);
  const int size = comm_old.size;
  // Check locally, then agree, so that a bad argument fails everywhere.
  int local_error = check_ranks(sources, n, size, "sources");
  long edges = 0;
  for (int i = 0; local_error == MPI_SUCCESS && i < n; ++i) {
    if (degrees[i] < 0)
      local_error = make_error(MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
    edges += degrees[i];
  }
  if (local_error == MPI_SUCCESS)
    local_error = check_ranks(destinations, static_cast<int>(edges), size, "destinations");
  const bool weighted = weights != MPI_UNWEIGHTED;
  if (local_error == MPI_SUCCESS && weighted && !(weights == MPI_WEIGHTS_EMPTY && edges == 0)) {
    if (weights == MPI_WEIGHTS_EMPTY || (edges > 0 && weights == nullptr))
      local_error = make_error(MPI_ERR_ARG, "weights must hold %ld entries", edges);
    for (long i = 0; local_error == MPI_SUCCESS && i < edges; ++i)
      if (weights[i] < 0)
        local_error = make_error(MPI_ERR_ARG, "weights[%ld] = %d is negative", i, weights[i]);
  }
  // Per peer: triples (source, destination, weight) of the edges it ends.
  std::vector<std::vector<int>> outgoing(static_cast<std::size_t>(size));
  long e = 0;
  for (int i = 0; local_error == MPI_SUCCESS && i < n; ++i) {
    for (int j = 0; j < degrees[i]; ++j, ++e) {
      const int s = sources[i], d = destinations[e];
      const int w = weighted && weights != MPI_WEIGHTS_EMPTY ? weights[e] : 1;
      auto& to_source = outgoing[static_cast<std::size_t>(s)];
      to_source.insert(to_source.end(), {s, d, w});
      if (d != s) {  // a self loop goes once
        auto& to_destination = outgoing[static_cast<std::size_t>(d)];
        to_destination.insert(to_destination.end(), {s, d, w});
      }
    }
  }
  int flags[2] = {local_error == MPI_SUCCESS ? 0 : 1, weighted ? 1 : 0};
  mpi::coll::Reduction max_reduction;
  max_reduction.apply = [](const void* in, void* inout, MPI_Count count) {
    const int* a = static_cast<const int*>(in);
    int* b = static_cast<int*>(inout);
    for (MPI_Count i = 0; i < count; ++i) b[i] = a[i] > b[i] ? a[i] : b[i];
    return MPI_SUCCESS;
  };
  mpi::Datatype& int_type = *mpi::datatype_get(MPI_INT);
  if (int err = mpi::coll::allreduce(MPI_IN_PLACE, flags, 2, int_type, max_reduction, comm_old);
      err != MPI_SUCCESS)
    return err;
  if (local_error != MPI_SUCCESS) return local_error;
  if (flags[0] != 0)
    return make_error(MPI_ERR_ARG, "another process passed invalid edges to MPI_Dist_graph_create");
  std::vector<int> send_counts(static_cast<std::size_t>(size)), recv_counts(send_counts.size());
  for (int p = 0; p < size; ++p) send_counts[p] = static_cast<int>(outgoing[p].size());
  if (int err = alltoall_any(send_counts.data(), 1, &int_type, recv_counts.data(), 1, int_type,
                             comm_old, mpi::coll::Mode::kBlocking, nullptr);
      err != MPI_SUCCESS)
    return err;
  std::vector<std::vector<int>> incoming(static_cast<std::size_t>(size));
  std::vector<mpi::Request*> requests;
  for (int p = 0; p < size; ++p) {
    incoming[p].resize(static_cast<std::size_t>(recv_counts[p]));
    mpi::Request* req = nullptr;
    if (recv_counts[p] > 0) {
      if (int err =
              mpi::pt2pt::irecv(incoming[p].data(), recv_counts[p], int_type, p, kTagDistGraphEdges,
                                comm_old, comm_old.coll_context_id(), &req);
          err != MPI_SUCCESS)
        return err;
      requests.push_back(req);
    }
    if (send_counts[p] > 0) {
      if (int err = mpi::pt2pt::isend(outgoing[p].data(), send_counts[p], int_type, p,
                                      kTagDistGraphEdges, comm_old, comm_old.coll_context_id(),
                                      dev::SendMode::kStandard, &req);
          err != MPI_SUCCESS)
        return err;
      requests.push_back(req);
    }
  }
  if (int err = mpi::pt2pt::wait_all(static_cast<int>(requests.size()), requests.data());
      err != MPI_SUCCESS)
    return err;
  auto topology = std::make_shared<Topology>();
  topology->kind = MPI_DIST_GRAPH;
  topology->weighted = flags[1] != 0;
  for (int p = 0; p < size; ++p) {
    for (std::size_t k = 0; k + 3 <= incoming[p].size(); k += 3) {
      const int s = incoming[p][k], d = incoming[p][k + 1], w = incoming[p][k + 2];
      if (s == comm_old.rank) {
        topology->destinations.push_back(d);
        topology->destination_weights.push_back(w);
      }
      if (d == comm_old.rank) {
        topology->sources.push_back(s);
        topology->source_weights.push_back(w);
      }
    }
  }
  if (int err = comm_dup(comm_old, comm_dist_graph); err != MPI_SUCCESS) return err;
  mpi::comm_get(*comm_dist_graph)->topology = std::move(topology);
  return MPI_SUCCESS;
}

int dist_graph_neighbors_count(mpi::Comm& comm, int* indegree, int* outdegree, int* weighted) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_DIST_GRAPH, &err);
  if (t == nullptr) return err;
  *indegree = static_cast<int>(t->sources.size());
  *outdegree = static_cast<int>(t->destinations.size());
  *weighted = t->weighted ? 1 : 0;
  return MPI_SUCCESS;
}

int dist_graph_neighbors(mpi::Comm& comm, int maxindegree, int sources[], int sourceweights[],
                         int maxoutdegree, int destinations[], int destweights[]) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_DIST_GRAPH, &err);
  if (t == nullptr) return err;
  const int in = static_cast<int>(t->sources.size());
  const int out = static_cast<int>(t->destinations.size());
  if (maxindegree < in || maxoutdegree < out)
    return make_error(MPI_ERR_ARG,
                      "maxindegree = %d, maxoutdegree = %d: the process has %d "
                      "sources and %d destinations",
                      maxindegree, maxoutdegree, in, out);
  if ((in > 0 && sources == nullptr) || (out > 0 && destinations == nullptr))
    return make_error(MPI_ERR_ARG, "sources and destinations must not be NULL");
  const bool want_in = sourceweights != MPI_UNWEIGHTED && sourceweights != nullptr;
  const bool want_out = destweights != MPI_UNWEIGHTED && destweights != nullptr;
  for (int i = 0; i < in; ++i) {
    sources[i] = t->sources[i];
    if (want_in) sourceweights[i] = t->source_weights[i];
  }
  for (int i = 0; i < out; ++i) {
    destinations[i] = t->destinations[i];
    if (want_out) destweights[i] = t->destination_weights[i];
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl

namespace stmpi::mpi::topo {

int neighbors(const Comm& comm, std::vector<int>* sources, std::vector<int>* destinations) {
  int err;
  const Topology* t = topology_of(comm, MPI_UNDEFINED, &err);
  if (t == nullptr) return err;
  sources->clear();
  destinations->clear();
  if (t->kind == MPI_CART) {
    for (std::size_t d = 0; d < t->dims.size(); ++d) {
      int below, above;
      t->cart_shift(comm.rank, static_cast<int>(d), 1, &below, &above);
      sources->push_back(below);
      sources->push_back(above);
    }
    *destinations = *sources;
  } else if (t->kind == MPI_GRAPH) {
    const int begin = comm.rank == 0 ? 0 : t->index[comm.rank - 1];
    sources->assign(t->edges.begin() + begin, t->edges.begin() + t->index[comm.rank]);
    *destinations = *sources;
  } else {
    *sources = t->sources;
    *destinations = t->destinations;
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::topo
