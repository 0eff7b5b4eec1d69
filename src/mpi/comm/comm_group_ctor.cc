// Constructors collective over a group only, and the info-carrying
// variants of MPI_Comm_dup (MPI 4.1 sections 7.4.2, 7.4.4, 7.6.2, 11.3):
// MPI_Comm_create_group, MPI_Comm_create_from_group,
// MPI_Intercomm_create_from_groups, MPI_Comm_dup_with_info,
// MPI_Comm_idup(_with_info), MPI_Comm_set_info / MPI_Comm_get_info.
//
// A group-only construction agrees on its context id over a temporary
// communicator of the group members whose context is one of the reserved
// bootstrap ids (context_id.h), picked by a hash of the members, the tag
// and (for MPI_Comm_create_group) the parent's context; the messages' tags
// come from a second hash (BootstrapComm). Members run the same
// constructions in the same order, and matching is FIFO, so repeated
// constructions on one context stay apart; constructions that overlap in
// time (threads) stay apart by tag even when their bootstrap ids collide.
//
// MPI_Comm_idup(_with_info) runs the context id agreement as a
// nonblocking collective on the parent (see idup() below).
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <mpi.h>

#include "mpi/coll/launch.h"
#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/context_id.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/comm/intercomm.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/info/info.h"
#include "mpi/request/request.h"

namespace stmpi::mpi {
namespace {

// Folds v into h and scrambles the whole word (the splitmix64 finalizer), so
// inputs that differ in one low bit (two parents' context ids, "5" and "7")
// give hashes that differ everywhere. The bootstrap id takes the low bits
// and the agreement's tags bits 32-47: a shift-and-add combine left those
// equal for such inputs, and two concurrent constructions then matched each
// other's messages and livelocked (creategroup_concurrent, 1 run in 50).
uint64_t mix(uint64_t h, uint64_t v) {
  uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t hash_of(const Group& group, std::string_view tag, uint64_t extra) {
  uint64_t h = 1469598103934665603ULL;
  for (int w : group.world_ranks) h = mix(h, static_cast<uint64_t>(w));
  for (char c : tag) h = mix(h, static_cast<unsigned char>(c));
  return mix(h, extra);
}

}  // namespace

// A communicator over `group` on a bootstrap context, valid while the
// caller keeps it; predefined so that requests do not count references.
// Its collective sequence starts at a second hash of the same inputs, so
// the agreement's messages carry a tag of their own (schedule.cc): two
// constructions in flight at once (threads; MPI requires them to differ in
// tag or group) whose bootstrap ids collide still never match each other's
// messages unless 27 more bits of their hashes collide too.
struct BootstrapComm {
  Comm comm;
  BootstrapComm(Group& group, std::string_view tag, uint64_t extra) {
    const uint64_t hash = hash_of(group, tag, extra);
    comm.group = &group;
    comm.rank = group.my_rank;
    comm.size = group.size();
    comm.context_id = bootstrap_context_id(hash);
    comm.coll_seq = static_cast<uint32_t>(mix(hash, 0x5eed) >> 32);
    comm.predefined = true;
  }
  // A point-to-point tag derived the same way (intercommunicator leaders).
  int tag() const { return static_cast<int>(comm.coll_seq & 0xffffff); }
};

// Collective over the members of `group` only: a new intracommunicator.
int comm_from_group(Group& group, std::string_view tag, uint64_t extra, Errhandler* errhandler,
                    Comm** out) {
  if (group.my_rank == MPI_UNDEFINED)
    return errhan::make_error(MPI_ERR_GROUP, "this process is not a member of the group");
  BootstrapComm bootstrap(group, tag, extra);
  uint32_t id = 0;
  if (int err = context_id_allocate(bootstrap.comm, &id); err != MPI_SUCCESS) return err;
  group_retain(&group);
  *out = comm_create_object(&group, id, errhandler);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi

namespace stmpi::impl {
namespace {

using mpi::Comm;
using mpi::errhan::make_error;

void set_info(Comm& comm, MPI_Info info) {
  comm.info.clear();
  if (const mpi::Info* object = mpi::info_get(info); object != nullptr) comm.info = object->entries;
}

int check_info(MPI_Info info, const char* arg) {
  if (info != MPI_INFO_NULL && mpi::info_get(info) == nullptr)
    return make_error(MPI_ERR_INFO, "%s (0x%x) is not a valid info object", arg,
                      static_cast<unsigned>(info));
  return MPI_SUCCESS;
}

int errhandler_of(MPI_Errhandler handle, mpi::Errhandler** out) {
  if (handle == MPI_ERRHANDLER_NULL) {
    *out = mpi::errhandler_get(MPI_ERRORS_ARE_FATAL);
    return MPI_SUCCESS;
  }
  *out = mpi::errhandler_get(handle);
  if (*out == nullptr)
    return make_error(MPI_ERR_ARG, "errhandler (0x%x) is not a valid error handler",
                      static_cast<unsigned>(handle));
  return MPI_SUCCESS;
}

}  // namespace

int comm_create_group(mpi::Comm& comm, mpi::Group& group, int tag, MPI_Comm* newcomm) {
  if (comm.is_inter())
    return make_error(MPI_ERR_COMM, "comm (0x%x) is an intercommunicator",
                      static_cast<unsigned>(comm.handle));
  for (int i = 0; i < group.size(); ++i)
    if (comm.group->rank_of_world(group.world_ranks[i]) == MPI_UNDEFINED)
      return make_error(MPI_ERR_GROUP,
                        "rank %d of the group (MPI_COMM_WORLD rank %d) is not in the communicator",
                        i, group.world_ranks[i]);
  if (group.my_rank == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;  // MPI: only members call it; a non-member gets nothing
    return MPI_SUCCESS;
  }
  const std::string tag_text = std::to_string(tag);
  Comm* created = nullptr;
  if (int err = mpi::comm_from_group(group, tag_text, comm.context_id, comm.errhandler, &created);
      err != MPI_SUCCESS)
    return err;
  *newcomm = created->handle;
  return MPI_SUCCESS;
}

int comm_create_from_group(mpi::Group& group, const char* stringtag, MPI_Info info,
                           MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  if (int err = check_info(info, "info"); err != MPI_SUCCESS) return err;
  mpi::Errhandler* handler = nullptr;
  if (int err = errhandler_of(errhandler, &handler); err != MPI_SUCCESS) return err;
  Comm* created = nullptr;
  if (int err = mpi::comm_from_group(group, stringtag, 0, handler, &created); err != MPI_SUCCESS)
    return err;
  set_info(*created, info);
  *newcomm = created->handle;
  return MPI_SUCCESS;
}

// The local groups each build an intracommunicator; the two leaders talk
// over a two-process bootstrap communicator of their own.
int intercomm_create_from_groups(mpi::Group& local_group, int local_leader,
                                 mpi::Group& remote_group, int remote_leader, const char* stringtag,
                                 MPI_Info info, MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  if (int err = check_info(info, "info"); err != MPI_SUCCESS) return err;
  if (local_leader < 0 || local_leader >= local_group.size())
    return make_error(MPI_ERR_RANK, "local_leader = %d is not a rank of local_group (size %d)",
                      local_leader, local_group.size());
  if (remote_leader < 0 || remote_leader >= remote_group.size())
    return make_error(MPI_ERR_RANK, "remote_leader = %d is not a rank of remote_group (size %d)",
                      remote_leader, remote_group.size());
  mpi::Errhandler* handler = nullptr;
  if (int err = errhandler_of(errhandler, &handler); err != MPI_SUCCESS) return err;
  Comm* local = nullptr;
  if (int err = mpi::comm_from_group(local_group, stringtag, 1, handler, &local);
      err != MPI_SUCCESS)
    return err;
  const int me = local_group.world_ranks[local_leader];
  const int other = remote_group.world_ranks[remote_leader];
  mpi::Group* pair =
      mpi::group_create(me < other ? std::vector<int>{me, other} : std::vector<int>{other, me});
  int err;
  {
    mpi::BootstrapComm peer(*pair, stringtag, 2);
    const bool leader = local->rank == local_leader;
    err = intercomm_create(*local, local_leader, leader ? &peer.comm : nullptr, me < other ? 1 : 0,
                           peer.tag(), newintercomm);
  }
  mpi::group_release(pair);
  MPI_Comm local_handle = local->handle;
  (void)comm_free(&local_handle);
  if (err == MPI_SUCCESS) set_info(*mpi::comm_get(*newintercomm), info);
  return err;
}

int comm_dup_with_info(mpi::Comm& comm, MPI_Info info, MPI_Comm* newcomm) {
  if (int err = check_info(info, "info"); err != MPI_SUCCESS) return err;
  if (int err = comm_dup(comm, newcomm); err != MPI_SUCCESS) return err;
  set_info(*mpi::comm_get(*newcomm), info);
  return MPI_SUCCESS;
}

namespace {

// Undoes a duplicate whose context id agreement failed or never started.
void drop_duplicate(Comm* dup) {
  if (mpi::comm_get(dup->handle) == dup) {
    (void)mpi::attr_delete_all(*dup);
    mpi::comm_table().remove(dup->handle);
    mpi::comm_release(dup);
  }
}

// MPI_Comm_idup(_with_info) on an intracommunicator: the new communicator
// (handle, group, error handler, attributes, info) exists when the call
// returns; its context id comes from the agreement run as a nonblocking
// collective on the parent, so the request completes while the caller
// goes on (point-to-point on the parent, other collectives, more idups).
// An intercommunicator's duplicate needs two ids (its own and its
// local_comm's), agreed across both groups by a schedule on the parent
// intercommunicator (context_id_schedule_n).
int idup(Comm& comm, const MPI_Info* info, MPI_Comm* newcomm, MPI_Request* request) {
  Comm* dup;
  if (comm.is_inter()) {
    mpi::group_retain(comm.group);
    mpi::group_retain(comm.remote_group);
    const uint32_t none[2] = {mpi::kNoContextId, mpi::kNoContextId};
    dup = mpi::intercomm_create_object(comm.group, comm.remote_group, none, comm);
  } else {
    mpi::group_retain(comm.group);
    dup = mpi::comm_create_object(comm.group, mpi::kNoContextId, comm.errhandler);
  }
  dup->topology = comm.topology;
  dup->streams = comm.streams;
  dup->info = comm.info;
  if (info != nullptr) set_info(*dup, *info);
  if (int err = mpi::attr_copy_all(comm, *dup); err != MPI_SUCCESS) {
    drop_duplicate(dup);
    return err;
  }
  const MPI_Comm handle = dup->handle;
  mpi::comm_retain(dup);  // the agreement's, until it settles
  const int err = mpi::coll::launch(
      comm, mpi::coll::Mode::kNonblocking, request, [dup](mpi::coll::Schedule& s) {
        const int count = dup->is_inter() ? 2 : 1;
        return mpi::context_id_schedule_n(s, count, [dup](int code, const uint32_t* ids) {
          if (code == MPI_SUCCESS) {
            dup->context_id = ids[0];
            if (dup->local_comm != nullptr) dup->local_comm->context_id = ids[1];
          } else {
            drop_duplicate(dup);
          }
          mpi::comm_release(dup);
        });
      });
  if (err != MPI_SUCCESS) {  // nothing ran: the schedule was never started
    mpi::comm_release(dup);
    drop_duplicate(dup);
    return err;
  }
  *newcomm = handle;
  return MPI_SUCCESS;
}

}  // namespace

int comm_idup(mpi::Comm& comm, MPI_Comm* newcomm, MPI_Request* request) {
  return idup(comm, nullptr, newcomm, request);
}

int comm_idup_with_info(mpi::Comm& comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  if (int err = check_info(info, "info"); err != MPI_SUCCESS) return err;
  return idup(comm, &info, newcomm, request);
}

int comm_set_info(mpi::Comm& comm, MPI_Info info) {
  if (int err = check_info(info, "info"); err != MPI_SUCCESS) return err;
  set_info(comm, info);
  return MPI_SUCCESS;
}

int comm_get_info(mpi::Comm& comm, MPI_Info* info_used) {
  mpi::Info* info = mpi::info_create();
  info->entries = comm.info;
  *info_used = info->handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
