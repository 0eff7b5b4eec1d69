// Runtime parameters of the one-sided chapter, the passive-lock statistics
// (MPIX_Win_get_lock_stats and the report at MPI_Finalize).
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <mpi.h>

#include "binding/call.h"
#include "device/device.h"
#include "mpi/init/state.h"
#include "mpi/rma/rma.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/win.h"
#include "util/param.h"

namespace stmpi::mpi::rma {
namespace {

Settings g_settings;

const util::Param kParams[] = {
    {"print_stats", util::Param::Type::kBool, &g_settings.print_stats, "no",
     "print passive-lock statistics (acquisitions, remote atomics per acquisition) at MPI_Finalize"},
    {"single_copy", util::Param::Type::kBool, &g_settings.single_copy, "yes",
     "reach other processes' private window memory (MPI_Win_create, dynamic windows) by single "
     "copy (Linux CMA); 'no' uses active messages, which need the target to call MPI"},
    {"attach_slots", util::Param::Type::kInt, &g_settings.attach_slots, "256",
     "memory regions one process may attach to a dynamic window at a time"},
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

}  // namespace

const Settings& settings() { return g_settings; }

void stats_add_freed(const dev::rma::lock::LockStats& stats) { add(g_freed, stats); }

void finalize() {
  if (!g_settings.print_stats) return;
  const dev::rma::lock::LockStats& s = g_freed;
  std::fprintf(stderr,
               "STMPI rma stats (rank %d): %lld lock acquisitions (%lld waited, %lld shared requests "
               "re-queued), %lld remote atomic operations, %.2f per acquisition, at most %lld in "
               "one\n",
               dev::world_rank(), static_cast<long long>(s.acquisitions),
               static_cast<long long>(s.waited), static_cast<long long>(s.retried),
               static_cast<long long>(s.remote_ops),
               s.acquisitions != 0 ? static_cast<double>(s.remote_ops) / static_cast<double>(s.acquisitions) : 0.0,
               static_cast<long long>(s.max_remote_ops));
}

}  // namespace stmpi::mpi::rma

using stmpi::binding::Call;

extern "C" STMPI_API int PMPIX_Win_get_lock_stats(MPI_Win win, long long* acquisitions,
                                                  long long* remote_atomics) {
  Call call("MPIX_Win_get_lock_stats");
  stmpi::mpi::Win* win_obj = call.win(win, "win");
  call.not_null(acquisitions, "acquisitions");
  call.not_null(remote_atomics, "remote_atomics");
  if (call.failed()) return call.result();
  const stmpi::dev::rma::lock::LockStats& s = win_obj->locks.stats();
  *acquisitions = s.acquisitions;
  *remote_atomics = s.remote_ops;
  return MPI_SUCCESS;
}
extern "C" STMPI_API decltype(PMPIX_Win_get_lock_stats) MPIX_Win_get_lock_stats
    __attribute__((weak, alias("PMPIX_Win_get_lock_stats")));

extern "C" STMPI_API int PMPIX_Win_get_lock_stats_max(MPI_Win win, long long* max_remote_atomics,
                                                      long long* waited) {
  Call call("MPIX_Win_get_lock_stats_max");
  stmpi::mpi::Win* win_obj = call.win(win, "win");
  call.not_null(max_remote_atomics, "max_remote_atomics");
  call.not_null(waited, "waited");
  if (call.failed()) return call.result();
  const stmpi::dev::rma::lock::LockStats& s = win_obj->locks.stats();
  *max_remote_atomics = s.max_remote_ops;
  *waited = s.waited;
  return MPI_SUCCESS;
}
extern "C" STMPI_API decltype(PMPIX_Win_get_lock_stats_max) MPIX_Win_get_lock_stats_max
    __attribute__((weak, alias("PMPIX_Win_get_lock_stats_max")));
