// Runtime parameters of the one-sided chapter, the passive-lock statistics
// (MPI_T performance variables and the report at MPI_Finalize;
// MPIX_Win_get_lock_stats is in src/mpi/mpix/st_stats.cc).
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <mpi.h>

#include "device/device.h"
#include "mpi/init/state.h"
#include "mpi/rma/rma.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/win.h"
#include "util/param.h"
#include "util/pvar.h"

namespace stmpi::mpi::rma {
namespace {

Settings g_settings;

const util::Param kParams[] = {
    {.name = "print_stats",
     .type = util::Param::Type::kBool,
     .field = &g_settings.print_stats,
     .default_value = "no",
     .description = "print passive-lock statistics (acquisitions, remote atomics per "
                    "acquisition) at MPI_Finalize",
     .scope = util::Param::Scope::kLocal},  // read at MPI_Finalize
    {"single_copy", util::Param::Type::kBool, &g_settings.single_copy, "yes",
     "reach other processes' private window memory (MPI_Win_create, dynamic windows) by single "
     "copy (Linux CMA); 'no' uses active messages, which need the target to call MPI"},
    {"attach_slots", util::Param::Type::kInt, &g_settings.attach_slots, "8192",
     "memory regions one process may attach to a dynamic window at a time (16 bytes each "
     "in the window's shared control block)",
     1, 1 << 20},
    {"am_atomics", util::Param::Type::kBool, &g_settings.am_atomics, "no",
     "reach other processes' lock words and PSCW signals by active-message 64-bit atomics (the "
     "fallback for memory without native remote atomics) instead of CPU atomics; for testing, "
     "passive locks then need the target to call MPI"},
};
const util::ParamTable kTable{"rma", kParams};
const util::ParamRegistration kRegistration{&kTable};

dev::rma::lock::LockStats g_freed;

void add(dev::rma::lock::LockStats& total, const dev::rma::lock::LockStats& more) {
  total.acquisitions += more.acquisitions;
  total.remote_ops += more.remote_ops;
  total.max_remote_ops = std::max(total.max_remote_ops, more.max_remote_ops);
  total.waited += more.waited;
  total.retried += more.retried;
}

// Lock statistics of the process: freed windows and the live ones.
dev::rma::lock::LockStats lock_totals() {
  dev::rma::lock::LockStats total = g_freed;
  win_table().for_each([&total](const Win& win) { add(total, win.device.locks().stats()); });
  return total;
}

const util::Pvar kPvars[] = {
    {"lock_acquisitions", util::Pvar::Class::kCounter,
     [] { return static_cast<uint64_t>(lock_totals().acquisitions); },
     "passive-target locks (MPI_Win_lock, each target of MPI_Win_lock_all) acquired"},
    {"lock_remote_atomics", util::Pvar::Class::kCounter,
     [] { return static_cast<uint64_t>(lock_totals().remote_ops); },
     "remote atomic operations and puts the lock protocol made (lock and unlock)"},
    {"lock_remote_atomics_max", util::Pvar::Class::kHighwatermark,
     [] { return static_cast<uint64_t>(lock_totals().max_remote_ops); },
     "the most remote operations one acquisition (lock and its unlock) took"},
    {"lock_waited", util::Pvar::Class::kCounter,
     [] { return static_cast<uint64_t>(lock_totals().waited); },
     "acquisitions that were not granted at once and waited in the queue"},
    {"lock_retried", util::Pvar::Class::kCounter,
     [] { return static_cast<uint64_t>(lock_totals().retried); },
     "shared lock requests told to start over behind an exclusive holder"},
};
const util::PvarTable kPvarTable{"rma", kPvars};
const util::PvarRegistration kPvarRegistration{&kPvarTable};

}  // namespace

const Settings& settings() { return g_settings; }

void stats_add_freed(const dev::rma::lock::LockStats& stats) { add(g_freed, stats); }

void finalize() {
  if (!g_settings.print_stats) return;
  const dev::rma::lock::LockStats& s = g_freed;
  std::fprintf(
      stderr,
      "STMPI rma stats (rank %d): %lld lock acquisitions (%lld waited, %lld shared requests "
      "re-queued), %lld remote atomic operations, %.2f per acquisition, at most %lld in "
      "one\n",
      dev::world_rank(), static_cast<long long>(s.acquisitions), static_cast<long long>(s.waited),
      static_cast<long long>(s.retried), static_cast<long long>(s.remote_ops),
      s.acquisitions != 0 ? static_cast<double>(s.remote_ops) / static_cast<double>(s.acquisitions)
                          : 0.0,
      static_cast<long long>(s.max_remote_ops));
}

}  // namespace stmpi::mpi::rma
