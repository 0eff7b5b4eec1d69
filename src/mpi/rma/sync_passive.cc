// Passive-target synchronization (MPI 4.1 section 12.5.3): lock/unlock,
// lock_all/unlock_all, flush and win_sync. The locks themselves are the
// device's (device/rma/lock/): this file keeps the epoch bookkeeping and the
// error checks.
#include <atomic>

#include <mpi.h>

#include "device/rma/rma.h"
#include "mpi/errhan/error.h"
#include "mpi/rma/impl_rma.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/win.h"

namespace stmpi::impl {
namespace {

using dev::rma::lock::LockType;
using mpi::LockState;
using mpi::Win;
using mpi::WinEpochs;
using mpi::errhan::make_error;

int check_lock_assert(int asserts, const char* function) {
  if ((asserts & ~MPI_MODE_NOCHECK) == 0) return MPI_SUCCESS;
  return make_error(MPI_ERR_ASSERT, "%s: assert=%d is not valid (only 0 or MPI_MODE_NOCHECK=%d)",
                    function, asserts, MPI_MODE_NOCHECK);
}

// A lock opens an access epoch; it cannot overlap an active-target one.
int check_no_active_access(Win& win, const char* function) {
  WinEpochs& e = win.epoch;
  if (e.started)
    return make_error(MPI_ERR_RMA_SYNC, "%s: the window has %s open", function,
                      mpi::rma::epoch_description(win));
  if (e.fence && e.fence_used)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: RMA calls were made in the current fence epoch; close it with "
                      "MPI_Win_fence (MPI_MODE_NOSUCCEED) first",
                      function);
  e.fence = false;
  return MPI_SUCCESS;
}

LockType type_of(LockState state) {
  return state == LockState::kExclusive ? LockType::kExclusive : LockType::kShared;
}

}  // namespace

int win_lock(int lock_type, int rank, int asserts, mpi::Win& win) {
  constexpr const char* kFunction = "MPI_Win_lock";
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
    return make_error(
        MPI_ERR_LOCKTYPE,
        "%s: lock_type=%d is neither MPI_LOCK_SHARED (%d) nor MPI_LOCK_EXCLUSIVE (%d)", kFunction,
        lock_type, MPI_LOCK_SHARED, MPI_LOCK_EXCLUSIVE);
  if (int err = check_lock_assert(asserts, kFunction)) return err;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int err = mpi::rma::check_rank(win, rank, "rank")) return err;
  WinEpochs& e = win.epoch;
  if (e.lock_all)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s(rank=%d): this process holds MPI_Win_lock_all on the "
                      "window",
                      kFunction, rank);
  if (e.locks[rank] != LockState::kNone)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s(rank=%d): this process already holds a %s lock on "
                      "rank %d of the window",
                      kFunction, rank,
                      e.locks[rank] == LockState::kExclusive ? "exclusive" : "shared", rank);
  if (int err = check_no_active_access(win, kFunction)) return err;
  const bool exclusive = lock_type == MPI_LOCK_EXCLUSIVE;
  const bool nocheck = (asserts & MPI_MODE_NOCHECK) != 0;
  if (!nocheck)
    win.device.locks().acquire(rank, exclusive ? LockType::kExclusive : LockType::kShared);
  e.locks[rank] = exclusive ? LockState::kExclusive : LockState::kShared;
  e.lock_nocheck[rank] = nocheck;
  ++e.locks_held;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

int win_unlock(int rank, mpi::Win& win) {
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int err = mpi::rma::check_rank(win, rank, "rank")) return err;
  WinEpochs& e = win.epoch;
  if (e.locks[rank] == LockState::kNone)
    return make_error(MPI_ERR_RMA_SYNC,
                      "MPI_Win_unlock(rank=%d): this process holds no lock on rank %d of the "
                      "window (the window has %s)",
                      rank, rank, mpi::rma::epoch_description(win));
  // Operations complete at the target before anyone else may get the lock:
  // the device flushes, or orders the release behind them.
  if (e.lock_nocheck[rank]) {
    if (int err = dev::rma::flush(win.target(rank).world_rank)) return err;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  } else if (int err = win.device.release_lock(rank, type_of(e.locks[rank]))) {
    return err;
  }
  e.locks[rank] = LockState::kNone;
  e.lock_nocheck[rank] = 0;
  --e.locks_held;
  return MPI_SUCCESS;
}

int win_lock_all(int asserts, mpi::Win& win) {
  constexpr const char* kFunction = "MPI_Win_lock_all";
  if (int err = check_lock_assert(asserts, kFunction)) return err;
  WinEpochs& e = win.epoch;
  if (e.lock_all || e.locks_held != 0)
    return make_error(MPI_ERR_RMA_SYNC, "%s: the window already has %s open", kFunction,
                      mpi::rma::epoch_description(win));
  if (int err = check_no_active_access(win, kFunction)) return err;
  e.lock_all_nocheck = (asserts & MPI_MODE_NOCHECK) != 0;
  if (!e.lock_all_nocheck)
    for (int r = 0; r < win.nranks; ++r) win.device.locks().acquire(r, LockType::kShared);
  e.lock_all = true;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

int win_unlock_all(mpi::Win& win) {
  WinEpochs& e = win.epoch;
  if (!e.lock_all)
    return make_error(MPI_ERR_RMA_SYNC,
                      "MPI_Win_unlock_all without MPI_Win_lock_all (the window "
                      "has %s)",
                      mpi::rma::epoch_description(win));
  if (int err = dev::rma::flush_all()) return err;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!e.lock_all_nocheck)
    for (int r = 0; r < win.nranks; ++r) win.device.locks().release(r, LockType::kShared);
  e.lock_all = false;
  e.lock_all_nocheck = false;
  return MPI_SUCCESS;
}

int win_flush(int rank, mpi::Win& win) {
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int err = mpi::rma::check_rank(win, rank, "rank")) return err;
  if (int err = mpi::rma::check_passive(win, rank, "MPI_Win_flush")) return err;
  if (int err = dev::rma::flush(win.target(rank).world_rank)) return err;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

int win_flush_all(mpi::Win& win) {
  if (int err = mpi::rma::check_passive(win, -1, "MPI_Win_flush_all")) return err;
  if (int err = dev::rma::flush_all()) return err;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

// Local completion: every transport has finished with the origin buffer
// when the call that issued it returned.
int win_flush_local(int rank, mpi::Win& win) {
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int err = mpi::rma::check_rank(win, rank, "rank")) return err;
  return mpi::rma::check_passive(win, rank, "MPI_Win_flush_local");
}

int win_flush_local_all(mpi::Win& win) {
  return mpi::rma::check_passive(win, -1, "MPI_Win_flush_local_all");
}

int win_sync(mpi::Win&) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
