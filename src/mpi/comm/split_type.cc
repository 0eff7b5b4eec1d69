// MPI_Comm_split_type (MPI 4.1 section 7.4.2): MPI_COMM_TYPE_SHARED,
// MPI_COMM_TYPE_HW_GUIDED and MPI_COMM_TYPE_HW_UNGUIDED.
//
// Every process describes where it runs as a list of (level, instance)
// colors, from the coarsest level down: the node, then, where hwloc is
// available, the package, NUMA node, L3, L2 and L1 cache, core and
// hardware thread whose cpuset contains the process's whole CPU binding
// (-1 where the binding spans several instances of a level). The node is
// the node id of the device's peer table (the launcher's process mapping,
// else host names).
//   SHARED        splits by node (shared memory is available node-wide).
//   HW_GUIDED     splits by the level named by the info key
//                 "mpi_hw_resource_type": "mpi_shared_memory" (the node)
//                 or an hwloc level name ("Package", "NUMANode", "L3Cache",
//                 "L2Cache", "L1Cache", "Core", "PU"; case-insensitive,
//                 "numa" and "socket" accepted too). An unknown value, a
//                 missing key, or a binding spanning several instances
//                 gives MPI_COMM_NULL, as MPI specifies.
//   HW_UNGUIDED   splits by the coarsest level at which the processes of
//                 comm differ, so that the result is a strict subset, and
//                 sets "mpi_hw_resource_type" on it (and in the info
//                 argument, when not MPI_INFO_NULL) to that level's name;
//                 MPI_COMM_NULL everywhere when no level tells them apart.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <mpi.h>

#include "config.h"
#include "device/device.h"
#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/info/info.h"

#ifdef STMPI_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace stmpi::impl {
namespace {

using mpi::errhan::make_error;

struct Level {
  const char* name;  // the value of mpi_hw_resource_type
#ifdef STMPI_HAVE_HWLOC
  hwloc_obj_type_t type;
#endif
};

// Coarse to fine, after the node.
#ifdef STMPI_HAVE_HWLOC
const Level kLevels[] = {
    {"Package", HWLOC_OBJ_PACKAGE}, {"NUMANode", HWLOC_OBJ_NUMANODE},
    {"L3Cache", HWLOC_OBJ_L3CACHE}, {"L2Cache", HWLOC_OBJ_L2CACHE},
    {"L1Cache", HWLOC_OBJ_L1CACHE}, {"Core", HWLOC_OBJ_CORE},
    {"PU", HWLOC_OBJ_PU},
};
#else
const Level kLevels[] = {{"Package"}, {"NUMANode"}, {"L3Cache"}, {"L2Cache"},
                         {"L1Cache"}, {"Core"},     {"PU"}};
#endif
constexpr int kNumLevels = 1 + static_cast<int>(sizeof kLevels / sizeof kLevels[0]);
constexpr const char* kNodeName = "mpi_shared_memory";

// Level index (0 = node) of an mpi_hw_resource_type value, or -1.
int level_of(std::string value) {
  for (char& c : value) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  if (value == kNodeName) return 0;
  if (value == "numa") return 2;
  if (value == "socket") return 1;
  for (int i = 1; i < kNumLevels; ++i) {
    std::string name = kLevels[i - 1].name;
    for (char& c : name) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    if (name == value) return i;
  }
  return -1;
}

const char* level_name(int level) { return level == 0 ? kNodeName : kLevels[level - 1].name; }

// This process's instance index at each hardware level (-1: unknown or
// spanning several instances).
void local_instances(int* out) {
  for (int i = 1; i < kNumLevels; ++i) out[i] = -1;
#ifdef STMPI_HAVE_HWLOC
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return;
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return;
  }
  hwloc_cpuset_t binding = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topology, binding, HWLOC_CPUBIND_PROCESS) == 0 &&
      !hwloc_bitmap_iszero(binding)) {
    for (int i = 1; i < kNumLevels; ++i) {
      const hwloc_obj_type_t type = kLevels[i - 1].type;
      const int count = hwloc_get_nbobjs_by_type(topology, type);
      for (int k = 0; k < count; ++k) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topology, type, static_cast<unsigned>(k));
        if (obj != nullptr && obj->cpuset != nullptr &&
            hwloc_bitmap_isincluded(binding, obj->cpuset)) {
          out[i] = static_cast<int>(obj->logical_index);
          break;
        }
      }
    }
  }
  hwloc_bitmap_free(binding);
  hwloc_topology_destroy(topology);
#endif
}

// Every process's colors at every level: all[r * kNumLevels + level].
int gather_colors(mpi::Comm& comm, std::vector<int>* all) {
  // Node: the device's peer table (what the launcher says: PMI process
  // mapping, else host names).
  int mine[kNumLevels];
  mine[0] = dev::my_node();
  local_instances(mine);
  all->resize(static_cast<std::size_t>(comm.size) * kNumLevels);
  mpi::Datatype& int_type = *mpi::datatype_get(MPI_INT);
  return mpi::coll::allgather(mine, kNumLevels, &int_type, all->data(), kNumLevels, int_type, comm);
}

// Color of process r for `level`: the node and every level above it must
// match too; -1 (MPI_UNDEFINED) when unknown.
int color_at(const std::vector<int>& all, int r, int level, int nprocs) {
  (void)nprocs;
  const int* c = &all[static_cast<std::size_t>(r) * kNumLevels];
  if (c[level] < 0) return MPI_UNDEFINED;
  // Deeper instances are combined with the node id.
  return level == 0 ? c[0] : c[0] * 4096 + c[level];
}

// On an intercommunicator the color comes from this process alone (its node, or its
// instance of the level the info names), and MPI_Comm_split pairs equal colors of the two
// groups into a new intercommunicator, as MPICH does. HW_UNGUIDED needs to compare the
// processes of one group and is refused here.
int split_type_inter(mpi::Comm& comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  if (split_type == MPI_COMM_TYPE_HW_UNGUIDED)
    return make_error(MPI_ERR_COMM,
                      "comm (0x%x) is an intercommunicator; MPI_COMM_TYPE_HW_UNGUIDED splits "
                      "intracommunicators only",
                      static_cast<unsigned>(comm.handle));
  if (split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED &&
      split_type != MPI_COMM_TYPE_HW_GUIDED)
    return make_error(MPI_ERR_ARG,
                      "split_type = %d is not MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
                      "MPI_COMM_TYPE_HW_UNGUIDED or MPI_UNDEFINED",
                      split_type);
  if (info != MPI_INFO_NULL && mpi::info_get(info) == nullptr)
    return make_error(MPI_ERR_INFO, "info (0x%x) is not a valid info object",
                      static_cast<unsigned>(info));
  int level = -1;
  if (split_type == MPI_COMM_TYPE_SHARED) {
    level = 0;
  } else if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
    const mpi::Info* object = mpi::info_get(info);
    auto value = object != nullptr ? object->find("mpi_hw_resource_type") : std::nullopt;
    if (value) level = level_of(std::string(*value));
  }
  int color = MPI_UNDEFINED;
  if (level >= 0) {
    std::vector<int> mine(kNumLevels);
    mine[0] = dev::my_node();
    local_instances(mine.data());
    color = color_at(mine, 0, level, 1);
  }
  return comm_split(comm, color, key, newcomm);
}

}  // namespace

int comm_split_type(mpi::Comm& comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  if (comm.is_inter()) return split_type_inter(comm, split_type, key, info, newcomm);
  if (split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED &&
      split_type != MPI_COMM_TYPE_HW_GUIDED && split_type != MPI_COMM_TYPE_HW_UNGUIDED)
    return make_error(MPI_ERR_ARG,
                      "split_type = %d is not MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
                      "MPI_COMM_TYPE_HW_UNGUIDED or MPI_UNDEFINED",
                      split_type);
  if (info != MPI_INFO_NULL && mpi::info_get(info) == nullptr)
    return make_error(MPI_ERR_INFO, "info (0x%x) is not a valid info object",
                      static_cast<unsigned>(info));
  std::vector<int> all;
  if (int err = gather_colors(comm, &all); err != MPI_SUCCESS) return err;
  int color = MPI_UNDEFINED;
  int level = -1;
  if (split_type == MPI_COMM_TYPE_SHARED) {
    level = 0;
  } else if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
    const mpi::Info* object = mpi::info_get(info);
    auto value = object != nullptr ? object->find("mpi_hw_resource_type") : std::nullopt;
    if (value) level = level_of(std::string(*value));
  } else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
    // The coarsest level at which the processes do not all share one instance.
    for (int l = 0; l < kNumLevels && level < 0; ++l) {
      const int first = color_at(all, 0, l, comm.size);
      for (int r = 1; r < comm.size; ++r)
        if (color_at(all, r, l, comm.size) != first) {
          level = l;
          break;
        }
      if (first == MPI_UNDEFINED) break;  // no finer knowledge
    }
  }
  if (level >= 0) color = color_at(all, comm.rank, level, comm.size);
  if (int err = comm_split(comm, color, key, newcomm); err != MPI_SUCCESS) return err;
  if (*newcomm != MPI_COMM_NULL && level >= 0) {
    mpi::Comm* created = mpi::comm_get(*newcomm);
    created->info.emplace_back("mpi_hw_resource_type", level_name(level));
    // HW_UNGUIDED also reports the level in the caller's info object, as
    // MPICH does (mpi4py reads it there).
    if (split_type == MPI_COMM_TYPE_HW_UNGUIDED && info != MPI_INFO_NULL)
      mpi::info_get(info)->set("mpi_hw_resource_type", level_name(level));
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
