// Runtime parameters of the collectives (STMPI_COLL_*): the algorithm of
// each collective ("auto" picks by message size and process count) and
// the thresholds "auto" uses. docs/user/parameters.md lists them.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

namespace stmpi::mpi::coll {

struct Settings {
  std::string barrier_algorithm = "auto";
  std::string bcast_algorithm = "auto";
  std::string reduce_algorithm = "auto";
  std::string allreduce_algorithm = "auto";
  std::string gather_algorithm = "auto";
  std::string scatter_algorithm = "auto";
  std::string allgather_algorithm = "auto";
  std::string alltoall_algorithm = "auto";
  std::string alltoallv_algorithm = "auto";
  std::string reduce_scatter_algorithm = "auto";
  std::string scan_algorithm = "auto";
  std::size_t bcast_long_bytes = 0;
  int bcast_long_min_procs = 0;
  std::size_t allreduce_short_bytes = 0;
  std::size_t allreduce_ring_bytes = 0;
  std::size_t allgather_short_bytes = 0;
  std::size_t alltoall_short_bytes = 0;
  std::size_t alltoall_medium_bytes = 0;
  std::size_t gather_linear_bytes = 0;
  std::size_t node_aware_max_bytes = 0;
};

const Settings& settings();

// The index in `names` of the algorithm the setting `value` names, -1 for
// "auto". The table's choices already refused every other value; a name the
// table has and `names` lacks is MPI_ERR_INTERN (returned, *index untouched).
[[nodiscard]] int choose(const std::string& value, const char* collective,
                         std::initializer_list<const char*> names, int* index);

}  // namespace stmpi::mpi::coll
