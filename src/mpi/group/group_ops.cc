// The MPI group calls (MPI 4.1 chapter 7.3): constructors from a group's
// ranks (incl, excl, range_incl, range_excl), set operations, queries, free.
// Arguments the bindings cannot judge (ranks inside a group, duplicates,
// ranges) are checked here; every error names the array index and value.
#include <unordered_map>
#include <utility>
#include <vector>

#include <mpi.h>

#include "mpi/comm/impl_comm_group.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"

namespace stmpi::impl {
namespace {

using mpi::Group;
using mpi::errhan::make_error;

// World rank -> group rank, for lookups of many ranks in a large group.
class RankIndex {
 public:
  explicit RankIndex(const Group& group) {
    index_.reserve(group.world_ranks.size());
    for (int i = 0; i < group.size(); ++i) index_.emplace(group.world_ranks[i], i);
  }
  bool contains(int world_rank) const { return index_.count(world_rank) != 0; }
  int rank_of(int world_rank) const {
    auto it = index_.find(world_rank);
    return it == index_.end() ? MPI_UNDEFINED : it->second;
  }

 private:
  std::unordered_map<int, int> index_;
};

// An empty result is MPI_GROUP_EMPTY itself, as the standard says for
// MPI_Group_incl with n = 0 and MPICH and Open MPI do for every constructor.
int return_group(std::vector<int> world_ranks, MPI_Group* newgroup) {
  *newgroup =
      world_ranks.empty() ? MPI_GROUP_EMPTY : mpi::group_create(std::move(world_ranks))->handle;
  return MPI_SUCCESS;
}

// Checks ranks[0..n) are distinct ranks of `group`; `selected[r]` is set
// for each, and holds the index that named it plus one.
int check_rank_list(const Group& group, int n, const int ranks[], const char* function,
                    std::vector<int>* selected) {
  if (n < 0) return make_error(MPI_ERR_ARG, "%s: n = %d is negative", function, n);
  selected->assign(group.size(), 0);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= group.size())
      return make_error(MPI_ERR_RANK, "%s: ranks[%d] = %d is not a rank of the group (size %d)",
                        function, i, r, group.size());
    if ((*selected)[r] != 0)
      return make_error(MPI_ERR_RANK, "%s: ranks[%d] = %d repeats ranks[%d]", function, i, r,
                        (*selected)[r] - 1);
    (*selected)[r] = i + 1;
  }
  return MPI_SUCCESS;
}

// The ranks named by `ranges` (first, last, stride triplets), in order;
// each must be a rank of `group`, named once over all triplets.
int expand_ranges(const Group& group, int n, int ranges[][3], const char* function,
                  std::vector<int>* ranks) {
  if (n < 0) return make_error(MPI_ERR_ARG, "%s: n = %d is negative", function, n);
  std::vector<int> named_by(group.size(), -1);
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (first < 0 || first >= group.size())
      return make_error(MPI_ERR_RANK, "%s: ranges[%d][0] = %d is not a rank of the group (size %d)",
                        function, i, first, group.size());
    if (last < 0 || last >= group.size())
      return make_error(MPI_ERR_RANK, "%s: ranges[%d][1] = %d is not a rank of the group (size %d)",
                        function, i, last, group.size());
    if (stride == 0) return make_error(MPI_ERR_ARG, "%s: ranges[%d][2] (stride) is 0", function, i);
    for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (named_by[r] >= 0)
        return make_error(MPI_ERR_RANK, "%s: rank %ld of ranges[%d] repeats one of ranges[%d]",
                          function, r, i, named_by[r]);
      named_by[r] = i;
      ranks->push_back(static_cast<int>(r));
    }
  }
  return MPI_SUCCESS;
}

}  // namespace

int group_size(mpi::Group& group, int* size) {
  *size = group.size();
  return MPI_SUCCESS;
}

int group_rank(mpi::Group& group, int* rank) {
  *rank = group.my_rank;
  return MPI_SUCCESS;
}

int group_free(MPI_Group* group) {
  Group* object = mpi::group_get(*group);
  if (object == nullptr)
    return make_error(MPI_ERR_GROUP, "group 0x%x is not a valid group", *group);
  // MPI_GROUP_EMPTY, which empty results are, may be freed like them (as in
  // MPICH and Open MPI): the handle becomes MPI_GROUP_NULL, the group stays.
  if (!object->predefined) mpi::group_release(object);
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

int group_incl(mpi::Group& group, int n, const int ranks[], MPI_Group* newgroup) {
  std::vector<int> selected;
  if (int err = check_rank_list(group, n, ranks, "MPI_Group_incl", &selected); err != MPI_SUCCESS)
    return err;
  std::vector<int> members(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) members[i] = group.world_ranks[ranks[i]];
  return return_group(std::move(members), newgroup);
}

int group_excl(mpi::Group& group, int n, const int ranks[], MPI_Group* newgroup) {
  std::vector<int> selected;
  if (int err = check_rank_list(group, n, ranks, "MPI_Group_excl", &selected); err != MPI_SUCCESS)
    return err;
  std::vector<int> members;
  members.reserve(static_cast<std::size_t>(group.size()));
  for (int r = 0; r < group.size(); ++r)
    if (selected[r] == 0) members.push_back(group.world_ranks[r]);
  return return_group(std::move(members), newgroup);
}

// Each triplet (first, last, stride) names first, first + stride, ... up to
// last; first and last must be ranks of the group, stride nonzero, and no
// rank may appear twice over all triplets.
int group_range_incl(mpi::Group& group, int n, int ranges[][3], MPI_Group* newgroup) {
  std::vector<int> ranks;
  if (int err = expand_ranges(group, n, ranges, "MPI_Group_range_incl", &ranks)) return err;
  std::vector<int> members;
  members.reserve(ranks.size());
  for (int r : ranks) members.push_back(group.world_ranks[r]);
  return return_group(std::move(members), newgroup);
}

int group_range_excl(mpi::Group& group, int n, int ranges[][3], MPI_Group* newgroup) {
  std::vector<int> ranks;
  if (int err = expand_ranges(group, n, ranges, "MPI_Group_range_excl", &ranks)) return err;
  std::vector<bool> excluded(group.size(), false);
  for (int r : ranks) excluded[r] = true;
  std::vector<int> members;
  for (int r = 0; r < group.size(); ++r)
    if (!excluded[r]) members.push_back(group.world_ranks[r]);
  return return_group(std::move(members), newgroup);
}

int group_translate_ranks(mpi::Group& group1, int n, const int ranks1[], mpi::Group& group2,
                          int ranks2[]) {
  if (n < 0) return make_error(MPI_ERR_ARG, "MPI_Group_translate_ranks: n = %d is negative", n);
  for (int i = 0; i < n; ++i) {
    const int r = ranks1[i];
    if (r != MPI_PROC_NULL && (r < 0 || r >= group1.size()))
      return make_error(
          MPI_ERR_RANK,
          "MPI_Group_translate_ranks: ranks1[%d] = %d is not a rank of group1 (size %d)", i, r,
          group1.size());
  }
  // A hash index pays off only when many ranks are looked up.
  const bool indexed = n > 16 && group2.size() > 16;
  RankIndex index = indexed ? RankIndex(group2) : RankIndex(*mpi::group_empty());
  for (int i = 0; i < n; ++i) {
    const int r = ranks1[i];
    if (r == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    const int world = group1.world_ranks[r];
    ranks2[i] = indexed ? index.rank_of(world) : group2.rank_of_world(world);
  }
  return MPI_SUCCESS;
}

int group_compare(mpi::Group& group1, mpi::Group& group2, int* result) {
  if (&group1 == &group2 || group1.world_ranks == group2.world_ranks) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  if (group1.size() != group2.size()) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  const RankIndex index(group2);
  for (int world : group1.world_ranks) {
    if (!index.contains(world)) {
      *result = MPI_UNEQUAL;
      return MPI_SUCCESS;
    }
  }
  *result = MPI_SIMILAR;
  return MPI_SUCCESS;
}

int group_union(mpi::Group& group1, mpi::Group& group2, MPI_Group* newgroup) {
  std::vector<int> members = group1.world_ranks;
  const RankIndex index(group1);
  for (int world : group2.world_ranks)
    if (!index.contains(world)) members.push_back(world);
  return return_group(std::move(members), newgroup);
}

int group_intersection(mpi::Group& group1, mpi::Group& group2, MPI_Group* newgroup) {
  std::vector<int> members;
  const RankIndex index(group2);
  for (int world : group1.world_ranks)
    if (index.contains(world)) members.push_back(world);
  return return_group(std::move(members), newgroup);
}

int group_difference(mpi::Group& group1, mpi::Group& group2, MPI_Group* newgroup) {
  std::vector<int> members;
  const RankIndex index(group2);
  for (int world : group1.world_ranks)
    if (!index.contains(world)) members.push_back(world);
  return return_group(std::move(members), newgroup);
}

}  // namespace stmpi::impl
