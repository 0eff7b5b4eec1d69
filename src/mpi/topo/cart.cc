// Cartesian topologies (MPI 4.1 sections 8.5.1-8.5.5): Cart_create/get/
// rank/coords/shift/sub/map, Cartdim_get, Dims_create, Topo_test.
//
// reorder is accepted and ignored: every process keeps its rank in the old
// communicator (the standard allows it). Processes beyond the grid get
// MPI_COMM_NULL.
#include <memory>
#include <vector>

#include <mpi.h>

#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/errhan/error.h"
#include "mpi/topo/impl_topo.h"
#include "mpi/topo/topology.h"

namespace stmpi::mpi {

int Topology::cart_size() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

void Topology::cart_coords(int rank, int* coords) const {
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    coords[i] = rank % dims[i];
    rank /= dims[i];
  }
}

int Topology::cart_rank(const int* coords) const {
  int rank = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) rank = rank * dims[i] + coords[i];
  return rank;
}

void Topology::cart_shift(int rank, int direction, int disp, int* source, int* dest) const {
  std::vector<int> coords(dims.size());
  cart_coords(rank, coords.data());
  const int here = coords[direction];
  const int extent = dims[direction];
  auto at = [&](int position) {
    if (position < 0 || position >= extent) {
      if (!periods[direction]) return MPI_PROC_NULL;
      position = ((position % extent) + extent) % extent;
    }
    coords[direction] = position;
    return cart_rank(coords.data());
  };
  *dest = at(here + disp);
  *source = at(here - disp);
}

namespace topo {

const Topology* topology_of(const Comm& comm, int kind, int* err) {
  const Topology* topology = comm.topology.get();
  if (comm.is_inter()) {
    *err = errhan::make_error(MPI_ERR_COMM,
                              "comm (0x%x) is an intercommunicator, which has no topology",
                              static_cast<unsigned>(comm.handle));
    return nullptr;
  }
  if (topology == nullptr || (kind != MPI_UNDEFINED && topology->kind != kind)) {
    const char* wanted = kind == MPI_CART         ? "a Cartesian"
                         : kind == MPI_GRAPH      ? "a graph"
                         : kind == MPI_DIST_GRAPH ? "a distributed graph"
                                                  : "a";
    *err = errhan::make_error(MPI_ERR_TOPOLOGY, "comm (0x%x) does not have %s topology",
                              static_cast<unsigned>(comm.handle), wanted);
    return nullptr;
  }
  *err = MPI_SUCCESS;
  return topology;
}

}  // namespace topo
}  // namespace stmpi::mpi

namespace stmpi::impl {
namespace {

using mpi::Topology;
using mpi::errhan::make_error;

int check_dims(int ndims, const int dims[], const char* function) {
  if (ndims < 0) return make_error(MPI_ERR_DIMS, "%s: ndims = %d is negative", function, ndims);
  for (int i = 0; i < ndims; ++i)
    if (dims[i] <= 0)
      return make_error(MPI_ERR_DIMS, "%s: dims[%d] = %d is not positive", function, i, dims[i]);
  return MPI_SUCCESS;
}

// Grid size, or -1 when it exceeds `limit`.
long grid_size(int ndims, const int dims[], long limit) {
  long n = 1;
  for (int i = 0; i < ndims; ++i) {
    n *= dims[i];
    if (n > limit) return -1;
  }
  return n;
}

int intra_only(const mpi::Comm& comm, const char* arg) {
  return make_error(MPI_ERR_COMM,
                    "%s (0x%x) is an intercommunicator; topologies need an "
                    "intracommunicator",
                    arg, static_cast<unsigned>(comm.handle));
}

}  // namespace

// Splits off the first prod(dims) processes, in their old order, and
// attaches the grid.
int cart_create(mpi::Comm& comm_old, int ndims, const int dims[], const int periods[], int reorder,
                MPI_Comm* comm_cart) {
  (void)reorder;
  if (comm_old.is_inter()) return intra_only(comm_old, "comm_old");
  if (int err = check_dims(ndims, dims, "MPI_Cart_create"); err != MPI_SUCCESS) return err;
  const long n = grid_size(ndims, dims, comm_old.size);
  if (n < 0)
    return make_error(MPI_ERR_TOPOLOGY,
                      "the grid of %d dimensions has more processes than comm_old (size %d)", ndims,
                      comm_old.size);
  auto topology = std::make_shared<Topology>();
  topology->kind = MPI_CART;
  topology->dims.assign(dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) topology->periods.push_back(periods[i] != 0 ? 1 : 0);
  const int color = comm_old.rank < n ? 0 : MPI_UNDEFINED;
  if (int err = comm_split(comm_old, color, comm_old.rank, comm_cart); err != MPI_SUCCESS)
    return err;
  if (*comm_cart != MPI_COMM_NULL) mpi::comm_get(*comm_cart)->topology = std::move(topology);
  return MPI_SUCCESS;
}

int cartdim_get(mpi::Comm& comm, int* ndims) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_CART, &err);
  if (t == nullptr) return err;
  *ndims = static_cast<int>(t->dims.size());
  return MPI_SUCCESS;
}

int cart_get(mpi::Comm& comm, int maxdims, int dims[], int periods[], int coords[]) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_CART, &err);
  if (t == nullptr) return err;
  const int ndims = static_cast<int>(t->dims.size());
  if (maxdims < ndims)
    return make_error(MPI_ERR_ARG, "maxdims = %d is less than the %d dimensions of comm", maxdims,
                      ndims);
  if (ndims > 0 && (dims == nullptr || periods == nullptr || coords == nullptr))
    return make_error(MPI_ERR_ARG, "dims, periods and coords must not be NULL");
  std::vector<int> here(static_cast<std::size_t>(ndims));
  t->cart_coords(comm.rank, here.data());
  for (int i = 0; i < ndims; ++i) {
    dims[i] = t->dims[i];
    periods[i] = t->periods[i];
    coords[i] = here[i];
  }
  return MPI_SUCCESS;
}

int cart_rank(mpi::Comm& comm, const int coords[], int* rank) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_CART, &err);
  if (t == nullptr) return err;
  const int ndims = static_cast<int>(t->dims.size());
  if (ndims > 0 && coords == nullptr) return make_error(MPI_ERR_ARG, "coords must not be NULL");
  std::vector<int> wrapped(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i) {
    int c = coords[i];
    if (c < 0 || c >= t->dims[i]) {
      if (!t->periods[i])
        return make_error(MPI_ERR_ARG,
                          "coords[%d] = %d is outside 0..%d of a non-periodic dimension", i, c,
                          t->dims[i] - 1);
      c = ((c % t->dims[i]) + t->dims[i]) % t->dims[i];
    }
    wrapped[i] = c;
  }
  *rank = t->cart_rank(wrapped.data());
  return MPI_SUCCESS;
}

int cart_coords(mpi::Comm& comm, int rank, int maxdims, int coords[]) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_CART, &err);
  if (t == nullptr) return err;
  const int ndims = static_cast<int>(t->dims.size());
  if (rank < 0 || rank >= comm.size)
    return make_error(MPI_ERR_RANK, "rank = %d is not a rank of comm (size %d)", rank, comm.size);
  if (maxdims < ndims)
    return make_error(MPI_ERR_ARG, "maxdims = %d is less than the %d dimensions of comm", maxdims,
                      ndims);
  if (ndims > 0 && coords == nullptr) return make_error(MPI_ERR_ARG, "coords must not be NULL");
  t->cart_coords(rank, coords);
  return MPI_SUCCESS;
}

int cart_shift(mpi::Comm& comm, int direction, int disp, int* rank_source, int* rank_dest) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_CART, &err);
  if (t == nullptr) return err;
  const int ndims = static_cast<int>(t->dims.size());
  if (direction < 0 || direction >= ndims)
    return make_error(MPI_ERR_ARG, "direction = %d is not a dimension of comm (0..%d)", direction,
                      ndims - 1);
  t->cart_shift(comm.rank, direction, disp, rank_source, rank_dest);
  return MPI_SUCCESS;
}

// Processes that agree on the dropped coordinates form one subgrid; the
// key (their rank in the old grid) keeps row-major order inside it.
int cart_sub(mpi::Comm& comm, const int remain_dims[], MPI_Comm* newcomm) {
  int err;
  const Topology* t = mpi::topo::topology_of(comm, MPI_CART, &err);
  if (t == nullptr) return err;
  const int ndims = static_cast<int>(t->dims.size());
  if (ndims > 0 && remain_dims == nullptr)
    return make_error(MPI_ERR_ARG, "remain_dims must not be NULL");
  std::vector<int> coords(static_cast<std::size_t>(ndims));
  t->cart_coords(comm.rank, coords.data());
  auto sub = std::make_shared<Topology>();
  sub->kind = MPI_CART;
  int color = 0;
  for (int i = 0; i < ndims; ++i) {
    if (remain_dims[i]) {
      sub->dims.push_back(t->dims[i]);
      sub->periods.push_back(t->periods[i]);
    } else {
      color = color * t->dims[i] + coords[i];
    }
  }
  if (int e = comm_split(comm, color, comm.rank, newcomm); e != MPI_SUCCESS) return e;
  mpi::comm_get(*newcomm)->topology = std::move(sub);
  return MPI_SUCCESS;
}

int cart_map(mpi::Comm& comm, int ndims, const int dims[], const int periods[], int* newrank) {
  (void)periods;
  if (comm.is_inter()) return intra_only(comm, "comm");
  if (int err = check_dims(ndims, dims, "MPI_Cart_map"); err != MPI_SUCCESS) return err;
  const long n = grid_size(ndims, dims, comm.size);
  if (n < 0)
    return make_error(MPI_ERR_TOPOLOGY, "the grid has more processes than comm (size %d)",
                      comm.size);
  *newrank = comm.rank < n ? comm.rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int topo_test(mpi::Comm& comm, int* status) {
  *status = comm.topology != nullptr && !comm.is_inter() ? comm.topology->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
