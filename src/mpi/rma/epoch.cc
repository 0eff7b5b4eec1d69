// Which RMA calls an open epoch allows (MPI 4.1 section 12.5), shared by
// the communication and synchronization calls.
#include <string>

#include <mpi.h>

#include "device/progress.h"
#include "device/rma/window_segment.h"
#include "mpi/comm/comm.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/win.h"

namespace stmpi::mpi::rma {

using errhan::make_error;

int check_rank(const Win& win, int rank, const char* arg) {
  if (rank >= 0 && rank < win.nranks) return MPI_SUCCESS;
  return make_error(MPI_ERR_RANK, "%s=%d is not a valid rank (the window has %d processes)", arg,
                    rank, win.nranks);
}

int ranks_of(const Win& win, const Group& group, const char* function, std::vector<int>* ranks) {
  ranks->clear();
  for (int i = 0; i < group.size(); ++i) {
    const int r = win.comm->group->rank_of_world(group.world_ranks[i]);
    if (r == MPI_UNDEFINED)
      return make_error(MPI_ERR_GROUP,
                        "%s: group member %d (world rank %d) is not a process of the window",
                        function, i, group.world_ranks[i]);
    ranks->push_back(r);
  }
  return MPI_SUCCESS;
}

const char* epoch_description(const Win& win) {
  const WinEpochs& e = win.epoch;
  if (e.lock_all) return "a passive-target epoch (MPI_Win_lock_all)";
  if (e.locks_held != 0) return "a passive-target epoch (MPI_Win_lock)";
  if (e.started && e.posted) {
    if (e.stream_access && e.stream_exposure)
      return "stream access and exposure epochs (MPI_Win_start with MPIX_MODE_STREAM, "
             "MPIX_Win_post_stream)";
    return "PSCW access and exposure epochs (MPI_Win_start, MPI_Win_post)";
  }
  if (e.started)
    return e.stream_access ? "a stream access epoch (MPI_Win_start with MPIX_MODE_STREAM)"
                           : "a PSCW access epoch (MPI_Win_start)";
  if (e.posted)
    return e.stream_exposure ? "a stream exposure epoch (MPIX_Win_post_stream)"
                             : "a PSCW exposure epoch (MPI_Win_post)";
  if (e.fence) return "a fence epoch";
  return "no epoch";
}

void wait_for_post(Win& win, int target) {
  WinEpochs& e = win.epoch;
  if (e.start_state[target] != kAwaitingPost) return;
  const std::size_t signal = win.device.layout().post_signal(target);
  dev::wait_until([&] { return win.device.signal_count(signal) > e.posts_seen[target]; });
  ++e.posts_seen[target];
  e.start_state[target] = kPostSeen;
}

int check_access(Win& win, int target, const char* function) {
  WinEpochs& e = win.epoch;
  if (e.lock_all || e.locks[target] != LockState::kNone) return MPI_SUCCESS;
  if (e.started) {
    if (e.start_state[target] == kNotStarted)
      return make_error(MPI_ERR_RMA_SYNC,
                        "%s: target_rank=%d is not in the group of the access epoch opened by "
                        "MPI_Win_start",
                        function, target);
    wait_for_post(win, target);
    return MPI_SUCCESS;
  }
  if (e.fence) {
    e.fence_used = true;
    return MPI_SUCCESS;
  }
  return make_error(MPI_ERR_RMA_SYNC,
                    "%s: target_rank=%d is outside any access epoch of this process (no "
                    "MPI_Win_fence, MPI_Win_start or lock covers it)",
                    function, target);
}

int check_passive(Win& win, int target, const char* function) {
  const WinEpochs& e = win.epoch;
  if (e.lock_all) return MPI_SUCCESS;
  if (target < 0 ? e.locks_held != 0 : e.locks[target] != LockState::kNone) return MPI_SUCCESS;
  if (target < 0)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s needs a passive-target epoch (MPI_Win_lock or "
                      "MPI_Win_lock_all); the window has %s",
                      function, epoch_description(win));
  return make_error(MPI_ERR_RMA_SYNC,
                    "%s: rank %d is not locked by this process (it needs MPI_Win_lock on it or "
                    "MPI_Win_lock_all)",
                    function, target);
}

}  // namespace stmpi::mpi::rma
