#include "mpi/coll/settings.h"

#include <mpi.h>

#include "mpi/errhan/error.h"
#include "util/param.h"

namespace stmpi::mpi::coll {
namespace {

Settings g_settings;

using util::Param;

// The values each algorithm parameter takes ("auto": chosen by message size
// and process count from the thresholds below): MPI_T shows them as an
// enumeration; choose() maps them to the algorithms.
const char* const kBarrierChoices[] = {"auto", "dissemination", "linear", "node_aware"};
const char* const kBcastChoices[] = {"auto", "binomial", "scatter_allgather", "node_aware"};
const char* const kReduceChoices[] = {"auto", "binomial", "linear", "node_aware"};
const char* const kAllreduceChoices[] = {"auto", "recursive_doubling", "rabenseifner",
                                         "ring", "reduce_bcast",       "node_aware"};
const char* const kGatherChoices[] = {"auto", "binomial", "linear"};
const char* const kScatterChoices[] = {"auto", "binomial", "linear"};
const char* const kAllgatherChoices[] = {"auto", "ring", "recursive_doubling", "bruck"};
const char* const kAlltoallChoices[] = {"auto", "bruck", "linear", "pairwise"};
const char* const kAlltoallvChoices[] = {"auto", "linear", "pairwise"};
const char* const kReduceScatterChoices[] = {"auto", "ring", "reduce_scatterv"};
const char* const kScanChoices[] = {"auto", "recursive_doubling", "linear"};

Param algorithm(Param param, std::span<const char* const> choices) {
  param.choices = choices;
  return param;
}

const Param kParams[] = {
    algorithm({"barrier_algorithm", Param::Type::kString, &g_settings.barrier_algorithm, "auto",
               "algorithm of MPI_Barrier and its nonblocking and persistent forms; node_aware: "
               "within each node, then among node leaders"},
              kBarrierChoices),
    algorithm({"bcast_algorithm", Param::Type::kString, &g_settings.bcast_algorithm, "auto",
               "algorithm of MPI_Bcast; scatter_allgather: binomial scatter, then ring "
               "allgather; node_aware: among node leaders, then within each node"},
              kBcastChoices),
    algorithm({"reduce_algorithm", Param::Type::kString, &g_settings.reduce_algorithm, "auto",
               "algorithm of MPI_Reduce; linear: the root combines in rank order; node_aware: "
               "within each node, then among node leaders (commutative ops; others binomial)"},
              kReduceChoices),
    algorithm({"allreduce_algorithm", Param::Type::kString, &g_settings.allreduce_algorithm, "auto",
               "algorithm of MPI_Allreduce; rabenseifner: reduce-scatter by recursive halving, "
               "then allgather; ring: commutative ops only (others use rabenseifner); node_aware: "
               "node reduce, leaders' recursive doubling, node bcast (commutative ops; others "
               "recursive_doubling)"},
              kAllreduceChoices),
    algorithm({"gather_algorithm", Param::Type::kString, &g_settings.gather_algorithm, "auto",
               "algorithm of MPI_Gather"},
              kGatherChoices),
    algorithm({"scatter_algorithm", Param::Type::kString, &g_settings.scatter_algorithm, "auto",
               "algorithm of MPI_Scatter"},
              kScatterChoices),
    algorithm({"allgather_algorithm", Param::Type::kString, &g_settings.allgather_algorithm, "auto",
               "algorithm of MPI_Allgather; recursive_doubling: powers of two only (others use "
               "bruck)"},
              kAllgatherChoices),
    algorithm({"alltoall_algorithm", Param::Type::kString, &g_settings.alltoall_algorithm, "auto",
               "algorithm of MPI_Alltoall; linear: all messages posted at once"},
              kAlltoallChoices),
    algorithm({"alltoallv_algorithm", Param::Type::kString, &g_settings.alltoallv_algorithm, "auto",
               "algorithm of MPI_Alltoallv and MPI_Alltoallw"},
              kAlltoallvChoices),
    algorithm({"reduce_scatter_algorithm", Param::Type::kString,
               &g_settings.reduce_scatter_algorithm, "auto",
               "algorithm of MPI_Reduce_scatter and MPI_Reduce_scatter_block; ring: commutative "
               "ops only (others use reduce_scatterv); reduce_scatterv: reduce to rank 0, then "
               "scatterv"},
              kReduceScatterChoices),
    algorithm({"scan_algorithm", Param::Type::kString, &g_settings.scan_algorithm, "auto",
               "algorithm of MPI_Scan and MPI_Exscan; linear: a chain"},
              kScanChoices),
    {"bcast_long_bytes", Param::Type::kSize, &g_settings.bcast_long_bytes, "131072",
     "auto bcast: messages of at least this many bytes use scatter_allgather"},
    {"bcast_long_min_procs", Param::Type::kInt, &g_settings.bcast_long_min_procs, "3",
     "auto bcast: scatter_allgather only on at least this many processes"},
    {"allreduce_short_bytes", Param::Type::kSize, &g_settings.allreduce_short_bytes, "8192",
     "auto allreduce: below this many bytes, recursive_doubling; from it, rabenseifner"},
    {"allreduce_ring_bytes", Param::Type::kSize, &g_settings.allreduce_ring_bytes, "4194304",
     "auto allreduce: from this many bytes on, ring (commutative ops)"},
    {"allgather_short_bytes", Param::Type::kSize, &g_settings.allgather_short_bytes, "65536",
     "auto allgather: below this many bytes in total, recursive_doubling (powers of two) or "
     "bruck; from it, ring"},
    {"alltoall_short_bytes", Param::Type::kSize, &g_settings.alltoall_short_bytes, "256",
     "auto alltoall: blocks up to this many bytes use bruck (8 processes or more)"},
    {"alltoall_medium_bytes", Param::Type::kSize, &g_settings.alltoall_medium_bytes, "32768",
     "auto alltoall: blocks up to this many bytes use linear; larger ones pairwise"},
    {"gather_linear_bytes", Param::Type::kSize, &g_settings.gather_linear_bytes, "65536",
     "auto gather/scatter: blocks of at least this many bytes use linear, smaller ones binomial"},
    {"node_aware_max_bytes", Param::Type::kSize, &g_settings.node_aware_max_bytes, "65536",
     "auto barrier/bcast/reduce/allreduce on a communicator spanning several nodes with several "
     "processes on some node: node_aware below this many bytes (0: never)"},
};
// Read at each collective call: a change through MPI_T applies to the
// next call, and every process must make the same one.
const util::ParamTable kTable{"coll", kParams, Param::Scope::kAllEq};
const util::ParamRegistration kRegistration{&kTable};

}  // namespace

const Settings& settings() { return g_settings; }

int choose(const std::string& value, const char* collective,
           std::initializer_list<const char*> names, int* index) {
  if (value == "auto") {
    *index = -1;
    return MPI_SUCCESS;
  }
  int i = 0;
  for (const char* name : names) {
    if (value == name) {
      *index = i;
      return MPI_SUCCESS;
    }
    ++i;
  }
  // The table's choices admit only these names (util::load_all and MPI_T
  // refuse others), so this is a caller whose list lags the table.
  return errhan::make_error(MPI_ERR_INTERN, "%s: algorithm %s is in the table but not handled",
                            collective, value.c_str());
}

}  // namespace stmpi::mpi::coll
