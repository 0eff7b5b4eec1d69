// Group objects: creation, reference counts, handles, MPI_GROUP_EMPTY.
#include "mpi/group/group.h"

#include <utility>

#include <mpi.h>

namespace stmpi::mpi {
namespace {

HandleTable<Group, ObjectKind::kGroup> g_groups;
Group g_empty;
int g_my_world_rank = MPI_UNDEFINED;

}  // namespace

HandleTable<Group, ObjectKind::kGroup>& group_table() { return g_groups; }

Group* group_get(int handle) { return g_groups.get(handle); }

Group* group_empty() { return &g_empty; }

int Group::rank_of_world(int world_rank) const {
  for (std::size_t i = 0; i < world_ranks.size(); ++i)
    if (world_ranks[i] == world_rank) return static_cast<int>(i);
  return MPI_UNDEFINED;
}

Group* group_create(std::vector<int> world_ranks) {
  auto* group = new Group;
  group->world_ranks = std::move(world_ranks);
  group->my_rank = group->rank_of_world(g_my_world_rank);
  group->handle = g_groups.add(group);
  return group;
}

void group_retain(Group* group) {
  if (!group->predefined) group->refs.fetch_add(1, std::memory_order_relaxed);
}

void group_release(Group* group) {
  if (group->predefined) return;
  if (group->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    g_groups.remove(group->handle);
    delete group;
  }
}

void group_init_world(int world_rank) {
  g_my_world_rank = world_rank;
  g_empty.handle = MPI_GROUP_EMPTY;
  g_empty.predefined = true;
  g_empty.my_rank = MPI_UNDEFINED;
  g_groups.add_predefined(MPI_GROUP_EMPTY, &g_empty);
}

void group_finalize_world() { g_my_world_rank = MPI_UNDEFINED; }

}  // namespace stmpi::mpi
