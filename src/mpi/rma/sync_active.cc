// Active-target synchronization (MPI 4.1 sections 12.5.1-12.5.2): fence and
// post/start/complete/wait/test.
//
// Every transfer through shared memory or single copy is complete when its
// call returns, so closing an epoch needs only a flush of active messages,
// a memory fence and a signal:
//   - fence: the window's barrier in its segment (window_segment.h);
//   - post: the target adds one to post[target] in each origin's control
//     block; start/RMA wait for it (the first RMA call to a target, or
//     complete, waits, so that MPI_Win_start itself never blocks);
//   - complete: the origin adds one to complete[origin] in each target's
//     control block once its operations there are complete (a flush, or
//     one add ordered behind them where the network module can: the device's
//     Window::signal_after); wait/test consume those.
// The counters only grow; each process remembers how many it has consumed,
// so a signal of the next epoch that arrives early is kept for it.
#include <algorithm>

#include <mpi.h>

#include "device/device.h"
#include "device/progress.h"
#include "device/rma/rma.h"
#include "device/rma/window_segment.h"
#include "mpi/comm/comm.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/rma/impl_rma.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/stream_hooks.h"
#include "mpi/rma/win.h"

namespace stmpi::mpi::rma {
namespace {

using errhan::make_error;

constexpr int kFenceAsserts =
    MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
constexpr int kPostAsserts = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT;
constexpr int kStartAsserts = MPI_MODE_NOCHECK | MPIX_MODE_STREAM;

int check_assert(int asserts, int allowed, const char* function) {
  if ((asserts & ~allowed) == 0) return MPI_SUCCESS;
  return make_error(MPI_ERR_ASSERT, "%s: assert=%d has bits (0x%x) that are not valid here",
                    function, asserts, static_cast<unsigned>(asserts & ~allowed));
}

// Passive and active access epochs must not overlap; a fence epoch that
// nothing has used yet simply ends.
int leave_unused_fence(Win& win, const char* function) {
  WinEpochs& e = win.epoch;
  if (e.fence && e.fence_used)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: RMA calls were made in the current fence epoch; close it with "
                      "MPI_Win_fence (MPI_MODE_NOSUCCEED) first",
                      function);
  e.fence = false;
  return MPI_SUCCESS;
}

bool completes_arrived(Win& win) {
  WinEpochs& e = win.epoch;
  for (int origin : e.post_ranks) {
    if (win.device.signal_count(win.device.layout().complete_signal(origin)) <=
        e.completes_seen[origin])
      return false;
  }
  return true;
}

void consume_completes(Win& win) {
  WinEpochs& e = win.epoch;
  for (int origin : e.post_ranks) ++e.completes_seen[origin];
  e.posted = false;
  e.post_ranks.clear();
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace
}  // namespace stmpi::mpi::rma

namespace stmpi::impl {

using mpi::Win;
using mpi::WinEpochs;
using mpi::errhan::make_error;

int win_fence(int asserts, mpi::Win& win) {
  if (int err = mpi::rma::check_assert(asserts, mpi::rma::kFenceAsserts, "MPI_Win_fence"))
    return err;
  WinEpochs& e = win.epoch;
  if (e.started || e.posted || e.locks_held != 0 || e.lock_all)
    return make_error(MPI_ERR_RMA_SYNC,
                      "MPI_Win_fence: the window has %s open; fence cannot be mixed "
                      "with it",
                      mpi::rma::epoch_description(win));
  if (int err = dev::rma::flush_all()) return err;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  win.device.barrier();
  e.fence = (asserts & MPI_MODE_NOSUCCEED) == 0;
  e.fence_used = false;
  return MPI_SUCCESS;
}

int win_post(mpi::Group& group, int asserts, mpi::Win& win) {
  constexpr const char* kFunction = "MPI_Win_post";
  if (int err = mpi::rma::check_assert(asserts, mpi::rma::kPostAsserts, kFunction)) return err;
  WinEpochs& e = win.epoch;
  if (e.posted)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: an exposure epoch is already open (call MPI_Win_wait "
                      "or MPI_Win_test first)",
                      kFunction);
  if (e.locks_held != 0 || e.lock_all)
    return make_error(MPI_ERR_RMA_SYNC, "%s: the window has %s open", kFunction,
                      mpi::rma::epoch_description(win));
  // No exposure epoch is open, so post_ranks is unused: the ranks go there
  // and the vector keeps its capacity from epoch to epoch (no allocation).
  int err = mpi::rma::ranks_of(win, group, kFunction, &e.post_ranks);
  if (err == MPI_SUCCESS) err = mpi::rma::leave_unused_fence(win, kFunction);
  if (err != MPI_SUCCESS) {
    e.post_ranks.clear();
    return err;
  }
  e.posted = true;
  // Local stores to the window happen before any origin's access.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // One message each that needs no answer, where the network module can.
  for (int origin : e.post_ranks)
    if (int err = win.device.signal_after(origin, win.device.layout().post_signal(win.rank)))
      return err;
  return MPI_SUCCESS;
}

int win_start(mpi::Group& group, int asserts, mpi::Win& win) {
  constexpr const char* kFunction = "MPI_Win_start";
  if (int err = mpi::rma::check_assert(asserts, mpi::rma::kStartAsserts, kFunction)) return err;
  const bool stream = (asserts & MPIX_MODE_STREAM) != 0;
  if (stream)
    if (int err = mpi::mpix::stream_start_check(win)) return err;
  WinEpochs& e = win.epoch;
  if (e.started)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: an access epoch is already open (call "
                      "MPI_Win_complete first)",
                      kFunction);
  if (e.locks_held != 0 || e.lock_all)
    return make_error(MPI_ERR_RMA_SYNC, "%s: the window has %s open", kFunction,
                      mpi::rma::epoch_description(win));
  // As in MPI_Win_post: the closed epoch's vector, no allocation.
  int err = mpi::rma::ranks_of(win, group, kFunction, &e.start_ranks);
  if (err == MPI_SUCCESS) err = mpi::rma::leave_unused_fence(win, kFunction);
  if (err != MPI_SUCCESS) {
    e.start_ranks.clear();
    return err;
  }
  e.started = true;
  for (int target : e.start_ranks) e.start_state[target] = mpi::kAwaitingPost;
  if (stream) return mpi::mpix::stream_start(win);
  return MPI_SUCCESS;
}

int win_complete(mpi::Win& win) {
  WinEpochs& e = win.epoch;
  if (!e.started)
    return make_error(MPI_ERR_RMA_SYNC,
                      "MPI_Win_complete without a matching MPI_Win_start "
                      "(the window has %s)",
                      mpi::rma::epoch_description(win));
  if (int err = mpi::mpix::check_not_stream_access(win, "MPI_Win_complete")) return err;
  // Every post of this epoch is consumed, even by targets nothing was sent to.
  for (int target : e.start_ranks) mpi::rma::wait_for_post(win, target);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // Each signal follows the epoch's operations to its target (a flush, or
  // ordering where the network module offers it).
  for (int target : e.start_ranks) {
    if (int err = win.device.signal_after(target, win.device.layout().complete_signal(win.rank)))
      return err;
    e.start_state[target] = mpi::kNotStarted;
  }
  e.started = false;
  e.start_ranks.clear();
  return MPI_SUCCESS;
}

int win_wait(mpi::Win& win) {
  WinEpochs& e = win.epoch;
  if (!e.posted)
    return make_error(MPI_ERR_RMA_SYNC,
                      "MPI_Win_wait without a matching MPI_Win_post (the "
                      "window has %s)",
                      mpi::rma::epoch_description(win));
  if (int err = mpi::mpix::check_not_stream_exposure(win, "MPI_Win_wait")) return err;
  dev::wait_until([&] { return mpi::rma::completes_arrived(win); });
  mpi::rma::consume_completes(win);
  return MPI_SUCCESS;
}

int win_test(mpi::Win& win, int* flag) {
  WinEpochs& e = win.epoch;
  if (!e.posted)
    return make_error(MPI_ERR_RMA_SYNC,
                      "MPI_Win_test without a matching MPI_Win_post (the "
                      "window has %s)",
                      mpi::rma::epoch_description(win));
  if (int err = mpi::mpix::check_not_stream_exposure(win, "MPI_Win_test")) return err;
  dev::progress();
  *flag = mpi::rma::completes_arrived(win);
  if (*flag) mpi::rma::consume_completes(win);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
