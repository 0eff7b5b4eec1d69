// Intercommunicators (MPI 4.1 section 7.6): creation from two
// intracommunicators and a peer, merge, the remote-group queries, and dup,
// split and compare on intercommunicators.
//
// An intercommunicator holds its local group (Comm::group, rank and size
// are local), the remote group (point-to-point ranks name its members) and
// an unregistered intracommunicator over the local group (local_comm).
// Point-to-point traffic uses one context id agreed in both groups: a
// message carries the sender's local rank, which is its rank in the
// receiver's remote group. Every constructor runs its local part on a
// local intracommunicator, and the two leaders (local rank 0, or the ones
// the user names) exchange what the other side needs.
#include "mpi/comm/intercomm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "device/match/key.h"
#include "mpi/coll/coll.h"
#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/context_id.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/pt2pt/pt2pt.h"

namespace stmpi::mpi {
namespace {

Datatype& int_type() { return *datatype_get(MPI_INT); }

// The leader's side of an exchange of byte strings of known, equal length.
int leader_swap_bytes(const LeaderLink& link, const void* mine, void* theirs, std::size_t bytes) {
  return pt2pt::sendrecv(mine, static_cast<MPI_Count>(bytes), coll::byte_type(), link.peer,
                         link.tag, theirs, static_cast<MPI_Count>(bytes), coll::byte_type(),
                         link.peer, link.tag, *link.comm, link.context, MPI_STATUS_IGNORE);
}

}  // namespace

int intercomm_swap(Comm& local, int leader, const LeaderLink& link, const std::vector<int>& mine,
                   std::vector<int>* theirs) {
  int length = 0;
  if (local.rank == leader) {
    const int my_length = static_cast<int>(mine.size());
    if (int err = leader_swap_bytes(link, &my_length, &length, sizeof length); err != MPI_SUCCESS)
      return err;
  }
  if (int err = coll::bcast(&length, 1, int_type(), leader, local); err != MPI_SUCCESS) return err;
  theirs->assign(static_cast<std::size_t>(length), 0);
  if (local.rank == leader) {
    if (int err = pt2pt::sendrecv(mine.data(), static_cast<MPI_Count>(mine.size()), int_type(),
                                  link.peer, link.tag, theirs->data(), length, int_type(),
                                  link.peer, link.tag, *link.comm, link.context, MPI_STATUS_IGNORE);
        err != MPI_SUCCESS)
      return err;
  }
  return coll::bcast(theirs->data(), length, int_type(), leader, local);
}

int intercomm_context_ids(Comm& local, int leader, const LeaderLink& link, int count,
                          uint32_t* ids) {
  auto combine = [&](void* offer, std::size_t bytes) {
    // AND inside the group, AND with the other group's result, share it.
    coll::Reduction reduction;
    reduction.apply = [](const void* in, void* inout, MPI_Count n) {
      context_id_and(in, inout, static_cast<std::size_t>(n));
      return MPI_SUCCESS;
    };
    if (int err = coll::allreduce(MPI_IN_PLACE, offer, static_cast<MPI_Count>(bytes),
                                  coll::byte_type(), reduction, local);
        err != MPI_SUCCESS)
      return err;
    if (local.rank == leader) {
      std::vector<unsigned char> other(bytes);
      if (int err = leader_swap_bytes(link, offer, other.data(), bytes); err != MPI_SUCCESS)
        return err;
      context_id_and(other.data(), offer, bytes);
    }
    return coll::bcast(offer, static_cast<MPI_Count>(bytes), coll::byte_type(), leader, local);
  };
  return context_id_allocate_n(local, count, ids, combine);
}

Comm* intercomm_create_object(Group* local_group, Group* remote_group, const uint32_t* ids,
                              Comm& errhandler_source) {
  Comm* inter = comm_create_object(local_group, ids[0], errhandler_source.errhandler);
  inter->remote_group = remote_group;
  group_retain(local_group);
  inter->local_comm = comm_create_object(local_group, ids[1], nullptr, /*registered=*/false);
  return inter;
}

LeaderLink intercomm_leader_link(Comm& inter, int tag) {
  return LeaderLink{&inter, inter.coll_context_id(), 0, tag};
}

}  // namespace stmpi::mpi

namespace stmpi::impl {
namespace {

using mpi::Comm;
using mpi::errhan::make_error;

int not_inter(const Comm& comm, const char* arg) {
  return make_error(MPI_ERR_COMM,
                    "%s (0x%x) is an intracommunicator; an intercommunicator is required", arg,
                    static_cast<unsigned>(comm.handle));
}

}  // namespace

int intercomm_create(mpi::Comm& local_comm, int local_leader, mpi::Comm* peer_comm,
                     int remote_leader, int tag, MPI_Comm* newintercomm) {
  if (local_comm.is_inter())
    return make_error(MPI_ERR_COMM, "local_comm (0x%x) is an intercommunicator",
                      static_cast<unsigned>(local_comm.handle));
  if (local_leader < 0 || local_leader >= local_comm.size)
    return make_error(MPI_ERR_RANK, "local_leader = %d is not a rank of local_comm (size %d)",
                      local_leader, local_comm.size);
  // peer_comm, remote_leader and tag matter at the leader only; it checks
  // them and tells the group, so that a bad argument fails the whole group.
  int leader_error = MPI_SUCCESS;
  if (local_comm.rank == local_leader) {
    if (remote_leader < 0 || remote_leader >= peer_comm->peer_size())
      leader_error =
          make_error(MPI_ERR_RANK, "remote_leader = %d is not a rank of peer_comm (size %d)",
                     remote_leader, peer_comm->peer_size());
    else if (!peer_comm->is_inter() && remote_leader == peer_comm->rank)
      leader_error = make_error(
          MPI_ERR_RANK, "remote_leader = %d is this process, the local leader", remote_leader);
    else if (tag < 0 || tag > static_cast<int>(dev::match::kTagUb))
      leader_error = make_error(MPI_ERR_TAG, "tag = %d is not a valid tag", tag);
  }
  int leader_class = mpi::errhan::error_class_of(leader_error);
  if (int err =
          mpi::coll::bcast(&leader_class, 1, *mpi::datatype_get(MPI_INT), local_leader, local_comm);
      err != MPI_SUCCESS)
    return err;
  if (leader_error != MPI_SUCCESS) return leader_error;
  if (leader_class != MPI_SUCCESS)
    return make_error(leader_class,
                      "the local leader (rank %d of local_comm) rejected its "
                      "arguments (peer_comm, remote_leader or tag)",
                      local_leader);
  const mpi::LeaderLink link{peer_comm, peer_comm != nullptr ? peer_comm->context_id : 0,
                             remote_leader, tag};
  std::vector<int> remote;
  if (int err = mpi::intercomm_swap(local_comm, local_leader, link, local_comm.group->world_ranks,
                                    &remote);
      err != MPI_SUCCESS)
    return err;
  for (std::size_t i = 0; i < remote.size(); ++i)
    if (local_comm.group->rank_of_world(remote[i]) != MPI_UNDEFINED)
      return make_error(MPI_ERR_COMM,
                        "the groups overlap: remote rank %zu (MPI_COMM_WORLD rank %d) is also in "
                        "local_comm",
                        i, remote[i]);
  uint32_t ids[2];
  if (int err = mpi::intercomm_context_ids(local_comm, local_leader, link, 2, ids);
      err != MPI_SUCCESS)
    return err;
  mpi::group_retain(local_comm.group);
  *newintercomm = mpi::intercomm_create_object(
                      local_comm.group, mpi::group_create(std::move(remote)), ids, local_comm)
                      ->handle;
  return MPI_SUCCESS;
}

int intercomm_merge(mpi::Comm& intercomm, int high, MPI_Comm* newintracomm) {
  if (!intercomm.is_inter()) return not_inter(intercomm, "intercomm");
  Comm& local = *intercomm.local_comm;
  const mpi::LeaderLink link = mpi::intercomm_leader_link(intercomm, mpi::kTagInterMerge);
  // The leaders trade (high, world rank of the leader); the group with
  // high = false comes first, a tie goes to the lower leader.
  const std::vector<int> mine{high ? 1 : 0, local.group->world_ranks[0]};
  std::vector<int> theirs;
  if (int err = mpi::intercomm_swap(local, 0, link, mine, &theirs); err != MPI_SUCCESS) return err;
  const bool first = mine[0] != theirs[0] ? mine[0] == 0 : mine[1] < theirs[1];
  const auto& local_ranks = intercomm.group->world_ranks;
  const auto& remote_ranks = intercomm.remote_group->world_ranks;
  std::vector<int> members = first ? local_ranks : remote_ranks;
  const auto& second = first ? remote_ranks : local_ranks;
  members.insert(members.end(), second.begin(), second.end());
  uint32_t id = 0;
  if (int err = mpi::intercomm_context_ids(local, 0, link, 1, &id); err != MPI_SUCCESS) return err;
  *newintracomm =
      mpi::comm_create_object(mpi::group_create(std::move(members)), id, intercomm.errhandler)
          ->handle;
  return MPI_SUCCESS;
}

int comm_test_inter(mpi::Comm& comm, int* flag) {
  *flag = comm.is_inter() ? 1 : 0;
  return MPI_SUCCESS;
}

int comm_remote_size(mpi::Comm& comm, int* size) {
  if (!comm.is_inter()) return not_inter(comm, "comm");
  *size = comm.remote_group->size();
  return MPI_SUCCESS;
}

int comm_remote_group(mpi::Comm& comm, MPI_Group* group) {
  if (!comm.is_inter()) return not_inter(comm, "comm");
  mpi::group_retain(comm.remote_group);
  *group = comm.remote_group->handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl

namespace stmpi::mpi {

int intercomm_dup(Comm& comm, Comm** out) {
  uint32_t ids[2];
  const LeaderLink link = intercomm_leader_link(comm, kTagInterDup);
  if (int err = intercomm_context_ids(*comm.local_comm, 0, link, 2, ids); err != MPI_SUCCESS)
    return err;
  group_retain(comm.group);
  group_retain(comm.remote_group);
  *out = intercomm_create_object(comm.group, comm.remote_group, ids, comm);
  return MPI_SUCCESS;
}

// Each side learns every (color, key) of both groups; the new
// intercommunicator joins the local members of this color with the remote
// members of the same color, each ordered by key then rank. A color
// missing on the other side gives MPI_COMM_NULL.
int intercomm_split(Comm& comm, int color, int key, MPI_Comm* newcomm) {
  Comm& local = *comm.local_comm;
  const int mine[2] = {color, key};
  std::vector<int> local_pairs(2 * static_cast<std::size_t>(local.size));
  if (int err = coll::allgather(mine, 2, datatype_get(MPI_INT), local_pairs.data(), 2,
                                *datatype_get(MPI_INT), local);
      err != MPI_SUCCESS)
    return err;
  const LeaderLink link = intercomm_leader_link(comm, kTagInterSplit);
  std::vector<int> remote_pairs;
  if (int err = intercomm_swap(local, 0, link, local_pairs, &remote_pairs); err != MPI_SUCCESS)
    return err;
  uint32_t ids[2];
  if (int err = intercomm_context_ids(local, 0, link, 2, ids); err != MPI_SUCCESS) return err;
  auto members = [color](const std::vector<int>& pairs, const Group& group) {
    struct Member {
      int key;
      int world;
    };
    std::vector<Member> list;
    for (std::size_t r = 0; 2 * r < pairs.size(); ++r)
      if (pairs[2 * r] == color) list.push_back({pairs[2 * r + 1], group.world_ranks[r]});
    std::stable_sort(list.begin(), list.end(),
                     [](const Member& a, const Member& b) { return a.key < b.key; });
    std::vector<int> worlds;
    for (const Member& m : list) worlds.push_back(m.world);
    return worlds;
  };
  std::vector<int> remote_members =
      color == MPI_UNDEFINED ? std::vector<int>{} : members(remote_pairs, *comm.remote_group);
  if (remote_members.empty()) {
    context_id_release(ids[0]);
    context_id_release(ids[1]);
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  Group* local_group = group_create(members(local_pairs, *comm.group));
  *newcomm =
      intercomm_create_object(local_group, group_create(std::move(remote_members)), ids, comm)
          ->handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi
