// The MPI communicator calls (MPI 4.1 sections 7.4-7.8): queries,
// constructors (dup, split, create), comparison, free, names. Every
// constructor is collective over the parent and agrees on a context id
// there (context_id.h); new communicators inherit the parent's error
// handler, and MPI_Comm_dup also its attributes through copy callbacks.
#include <algorithm>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "mpi/coll/coll.h"
#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/context_id.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/comm/intercomm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"

namespace stmpi::impl {
namespace {

using mpi::Comm;
using mpi::errhan::make_error;

// Unregisters and drops a communicator that failed before reaching the user.
void discard(Comm* comm) {
  (void)mpi::attr_delete_all(*comm);
  mpi::comm_table().remove(comm->handle);
  mpi::comm_release(comm);
}

}  // namespace

int comm_rank(mpi::Comm& comm, int* rank) {
  *rank = comm.rank;
  return MPI_SUCCESS;
}

int comm_size(mpi::Comm& comm, int* size) {
  *size = comm.size;
  return MPI_SUCCESS;
}

int comm_dup(mpi::Comm& comm, MPI_Comm* newcomm) {
  Comm* dup = nullptr;
  if (comm.is_inter()) {
    if (int err = mpi::intercomm_dup(comm, &dup); err != MPI_SUCCESS) return err;
  } else {
    uint32_t context_id = 0;
    if (int err = mpi::context_id_allocate(comm, &context_id); err != MPI_SUCCESS) return err;
    mpi::group_retain(comm.group);
    dup = mpi::comm_create_object(comm.group, context_id, comm.errhandler);
  }
  dup->topology = comm.topology;
  dup->streams = comm.streams;
  dup->info = comm.info;
  if (int err = mpi::attr_copy_all(comm, *dup); err != MPI_SUCCESS) {
    // A failing copy callback: the call returns its error and no communicator.
    discard(dup);
    *newcomm = MPI_COMM_NULL;
    return err;
  }
  *newcomm = dup->handle;
  return MPI_SUCCESS;
}

int comm_free(MPI_Comm* comm) {
  Comm* object = mpi::comm_get(*comm);
  if (object == nullptr)
    return make_error(MPI_ERR_COMM, "comm 0x%x is not a valid communicator", *comm);
  if (object->predefined)
    return make_error(MPI_ERR_COMM, "%s is predefined and cannot be freed",
                      object->handle == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
  if (int err = mpi::attr_delete_all(*object); err != MPI_SUCCESS) return err;
  // Pending operations hold references; the object and its context id live
  // until they complete.
  mpi::comm_table().remove(object->handle);
  mpi::comm_release(object);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// Every process learns every (color, key); members of one color order
// themselves by key, then by rank in the parent.
int comm_split(mpi::Comm& comm, int color, int key, MPI_Comm* newcomm) {
  if (color < 0 && color != MPI_UNDEFINED)
    return make_error(MPI_ERR_ARG, "color = %d is negative and not MPI_UNDEFINED", color);
  if (comm.is_inter()) return mpi::intercomm_split(comm, color, key, newcomm);
  mpi::Datatype& int_type = *mpi::datatype_get(MPI_INT);
  const int mine[2] = {color, key};
  std::vector<int> all(2 * static_cast<std::size_t>(comm.size));
  if (int err = mpi::coll::allgather(mine, 2, &int_type, all.data(), 2, int_type, comm);
      err != MPI_SUCCESS)
    return err;
  uint32_t context_id = 0;
  if (int err = mpi::context_id_allocate(comm, &context_id); err != MPI_SUCCESS) return err;
  if (color == MPI_UNDEFINED) {
    mpi::context_id_release(context_id);
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  struct Member {
    int key;
    int parent_rank;
  };
  std::vector<Member> members;
  for (int r = 0; r < comm.size; ++r)
    if (all[2 * r] == color) members.push_back({all[2 * r + 1], r});
  std::stable_sort(members.begin(), members.end(),
                   [](const Member& a, const Member& b) { return a.key < b.key; });
  std::vector<int> world_ranks;
  world_ranks.reserve(members.size());
  for (const Member& m : members) world_ranks.push_back(comm.world_rank(m.parent_rank));
  Comm* split = mpi::comm_create_object(mpi::group_create(std::move(world_ranks)), context_id,
                                        comm.errhandler);
  *newcomm = split->handle;
  return MPI_SUCCESS;
}

// Processes outside `group` take part in the agreement and get MPI_COMM_NULL.
// Disjoint groups on different processes (MPI 2.2) work like split colors.
// On an intercommunicator `group` is a subset of the local group (MPI 4.1
// section 7.4.2): the result pairs it with the group the other side passed,
// each in its group's order; processes outside their group, and everyone
// when either group is empty, get MPI_COMM_NULL. That is a split with one
// color for the members, ordered by their rank in the group.
int comm_create(mpi::Comm& comm, mpi::Group& group, MPI_Comm* newcomm) {
  for (int i = 0; i < group.size(); ++i) {
    if (comm.group->rank_of_world(group.world_ranks[i]) == MPI_UNDEFINED)
      return make_error(MPI_ERR_GROUP,
                        "rank %d of the group (MPI_COMM_WORLD rank %d) is not in the %s", i,
                        group.world_ranks[i],
                        comm.is_inter() ? "local group of the intercommunicator" : "communicator");
  }
  if (comm.is_inter()) {
    const bool member = group.my_rank != MPI_UNDEFINED;
    return mpi::intercomm_split(comm, member ? 0 : MPI_UNDEFINED, member ? group.my_rank : 0,
                                newcomm);
  }
  uint32_t context_id = 0;
  if (int err = mpi::context_id_allocate(comm, &context_id); err != MPI_SUCCESS) return err;
  if (group.my_rank == MPI_UNDEFINED) {
    mpi::context_id_release(context_id);
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  mpi::group_retain(&group);
  *newcomm = mpi::comm_create_object(&group, context_id, comm.errhandler)->handle;
  return MPI_SUCCESS;
}

int comm_compare(mpi::Comm& comm1, mpi::Comm& comm2, int* result) {
  if (&comm1 == &comm2) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  if (comm1.is_inter() != comm2.is_inter()) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  int groups = MPI_UNEQUAL;
  if (int err = group_compare(*comm1.group, *comm2.group, &groups); err != MPI_SUCCESS) return err;
  if (comm1.is_inter()) {
    // Both the local and the remote groups decide.
    int remote = MPI_UNEQUAL;
    if (int err = group_compare(*comm1.remote_group, *comm2.remote_group, &remote);
        err != MPI_SUCCESS)
      return err;
    groups = std::max(groups, remote);  // MPI_IDENT < MPI_SIMILAR < MPI_UNEQUAL
  }
  *result = groups == MPI_IDENT ? MPI_CONGRUENT : groups;
  return MPI_SUCCESS;
}

int comm_group(mpi::Comm& comm, MPI_Group* group) {
  mpi::group_retain(comm.group);
  *group = comm.group->handle;
  return MPI_SUCCESS;
}

int comm_set_name(mpi::Comm& comm, const char* comm_name) {
  comm.name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int comm_get_name(mpi::Comm& comm, char* comm_name, int* resultlen) {
  const std::size_t length = std::min<std::size_t>(comm.name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(comm_name, comm.name.data(), length);
  comm_name[length] = '\0';
  *resultlen = static_cast<int>(length);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
