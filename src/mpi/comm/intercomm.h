// Intercommunicator internals shared by the communicator calls: the
// construction of an intercommunicator object and the exchanges between the
// two groups' leaders that every intercommunicator constructor uses.
#pragma once

#include <cstdint>
#include <vector>

#include <mpi.h>

namespace stmpi::mpi {

struct Comm;
struct Group;

// How a group's leader reaches the other group's leader: point-to-point on
// `comm` (context `context`, tag `tag`) with rank `peer`. Only the leader
// uses it.
struct LeaderLink {
  Comm* comm = nullptr;
  uint32_t context = 0;
  int peer = 0;
  int tag = 0;
};

// Collective over `local` (an intracommunicator): the leader (local rank
// `leader`) sends `mine` to the other leader and receives its vector, then
// everyone in `local` gets that vector.
[[nodiscard]] int intercomm_swap(Comm& local, int leader, const LeaderLink& link,
                                 const std::vector<int>& mine, std::vector<int>* theirs);

// Agrees on `count` context ids free in every process of both groups.
[[nodiscard]] int intercomm_context_ids(Comm& local, int leader, const LeaderLink& link, int count,
                                        uint32_t* ids);

// A registered intercommunicator over `local_group` and `remote_group`
// (taking over the caller's references) with point-to-point context
// ids[0] and an internal local_comm on ids[1].
Comm* intercomm_create_object(Group* local_group, Group* remote_group, const uint32_t* ids,
                              Comm& errhandler_source);

// Link between the leaders (rank 0 of each side) of an existing
// intercommunicator, on its collective context.
LeaderLink intercomm_leader_link(Comm& inter, int tag);

// MPI_Comm_dup and MPI_Comm_split on an intercommunicator (attributes are
// the caller's business).
[[nodiscard]] int intercomm_dup(Comm& comm, Comm** out);
[[nodiscard]] int intercomm_split(Comm& comm, int color, int key, MPI_Comm* newcomm);

// Tags of the leaders' exchanges on an intercommunicator's collective
// context; far above the collective tags of coll.h.
enum IntercommTag : int {
  kTagInterDup = 0x7100,
  kTagInterSplit,
  kTagInterMerge,
  kTagInterContext,
};

}  // namespace stmpi::mpi
