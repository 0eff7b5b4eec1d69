// Communicator objects: the handle table, MPI_COMM_WORLD and MPI_COMM_SELF,
// creation and reference counting.
#include "mpi/comm/comm.h"

#include <numeric>
#include <vector>

#include <mpi.h>

#include "mpi/comm/attr.h"
#include "mpi/comm/context_id.h"
#include "mpi/comm/keyval.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/group/group.h"
#include "mpi/part/part.h"

namespace stmpi::mpi {

constinit HandleTable<Comm, ObjectKind::kComm> g_comm_table;

namespace {

Comm g_world;
Comm g_self;
bool g_world_ready = false;

void init_predefined(Comm& comm, int handle, const char* name, Group* group, uint32_t context_id) {
  comm.handle = handle;
  comm.group = group;
  comm.rank = group->my_rank;
  comm.size = group->size();
  comm.context_id = context_id;
  comm.errhandler = errhandler_get(MPI_ERRORS_ARE_FATAL);
  if (comm.errhandler != nullptr) errhandler_retain(comm.errhandler);
  comm.name = name;
  comm.predefined = true;
  g_comm_table.add_predefined(handle, &comm);
  context_id_reserve(context_id);
}

void finalize_predefined(Comm& comm) {
  if (comm.group != nullptr) group_release(comm.group);
  if (comm.errhandler != nullptr) errhandler_release(comm.errhandler);
  comm.group = nullptr;
  comm.errhandler = nullptr;
  comm.name.clear();
  comm.handle = 0;  // the handle table no longer recognizes it
}

}  // namespace

Comm* comm_world() { return g_world_ready ? &g_world : nullptr; }
Comm* comm_self() { return g_world_ready ? &g_self : nullptr; }

int Comm::world_rank(int peer_rank) const {
  return (remote_group != nullptr ? remote_group : group)->world_ranks[peer_rank];
}

int Comm::peer_size() const { return remote_group != nullptr ? remote_group->size() : size; }

Comm* comm_create_object(Group* group, uint32_t context_id, Errhandler* errhandler,
                         bool registered) {
  auto* comm = new Comm;
  comm->group = group;
  comm->rank = group->my_rank;
  comm->size = group->size();
  comm->context_id = context_id;
  comm->errhandler = errhandler;
  if (errhandler != nullptr) errhandler_retain(errhandler);
  if (registered) comm->handle = g_comm_table.add(comm);
  return comm;
}

void comm_retain(Comm* comm) {
  if (!comm->predefined) comm->refs.fetch_add(1, std::memory_order_relaxed);
}

void comm_release(Comm* comm) {
  if (comm->predefined) return;
  if (comm->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  part::forget_context(comm->context_id);
  context_id_release(comm->context_id);
  comm->attributes.release_all();
  group_release(comm->group);
  if (comm->remote_group != nullptr) group_release(comm->remote_group);
  if (comm->local_comm != nullptr) comm_release(comm->local_comm);
  if (comm->errhandler != nullptr) errhandler_release(comm->errhandler);
  delete comm;
}

void comm_init_world(int world_rank, int world_size) {
  context_id_reset();
  group_init_world(world_rank);
  std::vector<int> everyone(static_cast<std::size_t>(world_size));
  std::iota(everyone.begin(), everyone.end(), 0);
  init_predefined(g_world, MPI_COMM_WORLD, "MPI_COMM_WORLD", group_create(std::move(everyone)),
                  kWorldContextId);
  init_predefined(g_self, MPI_COMM_SELF, "MPI_COMM_SELF", group_create({world_rank}),
                  kSelfContextId);
  attr_init_predefined(world_size);
  g_world_ready = true;
}

int comm_delete_self_attributes() {
  if (!g_world_ready) return MPI_SUCCESS;
  return attr_delete_all(g_self);
}

int comm_finalize_world() {
  if (!g_world_ready) return MPI_SUCCESS;
  int first_error = attr_delete_all(g_self);
  if (int err = attr_delete_all(g_world); first_error == MPI_SUCCESS) first_error = err;
  finalize_predefined(g_self);
  finalize_predefined(g_world);
  g_world_ready = false;
  group_finalize_world();
  context_id_reset();
  return first_error;
}

}  // namespace stmpi::mpi
