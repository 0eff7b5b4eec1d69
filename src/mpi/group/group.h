// MPI_Group: an ordered set of processes, named by their rank in
// MPI_COMM_WORLD (the device addresses peers by world rank).
#pragma once

#include <atomic>
#include <vector>

#include "mpi/handle.h"

namespace stmpi::mpi {

struct Group {
  int handle = 0;
  std::vector<int> world_ranks;  // group rank -> world rank
  int my_rank = -32766;          // MPI_UNDEFINED unless this process is a member
  std::atomic<int> refs{1};
  bool predefined = false;  // MPI_GROUP_EMPTY: never destroyed

  int size() const { return static_cast<int>(world_ranks.size()); }
  // Group rank of a world rank, or MPI_UNDEFINED.
  int rank_of_world(int world_rank) const;
};

HandleTable<Group, ObjectKind::kGroup>& group_table();
Group* group_get(int handle);

// Creates a group from world ranks, registers it, returns it (refs = 1).
// An empty vector makes a new empty group with its own handle (so that a
// user may free it), distinct from the predefined MPI_GROUP_EMPTY.
Group* group_create(std::vector<int> world_ranks);
void group_retain(Group* group);
void group_release(Group* group);

// Records this process's world rank (which decides Group::my_rank) and
// registers MPI_GROUP_EMPTY. Called by comm_init_world.
void group_init_world(int world_rank);
void group_finalize_world();
Group* group_empty();

}  // namespace stmpi::mpi
