// Persistent stream-triggered epochs (include/mpix.h): MPIX_Win_epoch_init
// opens a recording access epoch on the window (MPI_Put, MPI_Get and
// MPI_Accumulate are recorded as in a MPIX_MODE_STREAM epoch),
// MPIX_Win_epoch_commit closes it and builds the epoch
// (dev::rma::st::PersistentEpoch), MPIX_Win_epoch_start_stream enqueues one
// run of it, MPIX_Win_epoch_free drops it once the streams ran it.
//
// Handles are the addresses of MPIX_Win_epoch_s objects, known to a table of
// live epochs, so a freed or made-up handle is MPI_ERR_ARG and never read.
// Every call runs under the global lock (generated wrappers).
#include <mpi.h>
#include <mpix.h>

#include <algorithm>
#include <memory>
#include <new>
#include <unordered_set>
#include <utility>
#include <vector>

#include "device/rma/st/persistent_epoch.h"
#include "device/rma/st/stream_window.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/mpix/impl_mpix.h"
#include "mpi/mpix/win_stream.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/win.h"
#include "stream/registry.h"
#include "util/error.h"

struct MPIX_Win_epoch_s {
  stmpi::mpi::Win* win = nullptr;  // null once the window was freed
  int win_handle = 0;
  bool recording = true;  // until MPIX_Win_epoch_commit
  std::vector<int> origins;
  std::unique_ptr<stmpi::dev::rma::st::PersistentEpoch> device;
};

namespace stmpi::mpi::mpix {
namespace {

using errhan::make_error;

std::unordered_set<MPIX_Win_epoch_s*>& live_epochs() {
  static std::unordered_set<MPIX_Win_epoch_s*> live;
  return live;
}

unsigned win_of(const MPIX_Win_epoch_s& epoch) { return static_cast<unsigned>(epoch.win_handle); }

int lookup(MPIX_Win_epoch handle, const char* function, MPIX_Win_epoch_s** out) {
  if (handle == MPIX_WIN_EPOCH_NULL || live_epochs().count(handle) == 0)
    return make_error(MPI_ERR_ARG,
                      "%s: epoch=%p is not a persistent stream epoch (MPIX_WIN_EPOCH_NULL, freed, "
                      "or not made by MPIX_Win_epoch_init)",
                      function, static_cast<void*>(handle));
  if (handle->win == nullptr)
    return make_error(MPI_ERR_WIN,
                      "%s: the window of epoch=%p (win=0x%x) was freed; free the epoch with "
                      "MPIX_Win_epoch_free",
                      function, static_cast<void*>(handle), win_of(*handle));
  *out = handle;
  return MPI_SUCCESS;
}

// A start needs a window without open epochs, as MPIX_Win_post_stream does
// (a start is a post, a start, a complete and a wait).
int check_no_epoch(const Win& win, const char* function) {
  const WinEpochs& e = win.epoch;
  if (e.started || e.posted || e.locks_held != 0 || e.lock_all)
    return make_error(MPI_ERR_RMA_SYNC, "%s: win=0x%x has %s open; close it first", function,
                      static_cast<unsigned>(win.handle), rma::epoch_description(win));
  if (e.fence && e.fence_used)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: RMA calls were made in the current fence epoch of win=0x%x; close it "
                      "with MPI_Win_fence (MPI_MODE_NOSUCCEED) first",
                      function, static_cast<unsigned>(win.handle));
  return MPI_SUCCESS;
}

// The window's recording access epoch ends (committed or dropped).
void close_recording(Win& win) {
  WinEpochs& e = win.epoch;
  for (int target : e.start_ranks) e.start_state[target] = kNotStarted;
  e.started = false;
  e.stream_access = false;
  e.start_ranks.clear();
}

}  // namespace

int win_epoch_init(Group& post_group, Group& start_group, Win& win, MPIX_Win_epoch* out) {
  constexpr const char* kFunction = "MPIX_Win_epoch_init";
  if (int err = stream_check_flavor(win, kFunction)) return err;
  if (int err = check_no_epoch(win, kFunction)) return err;
  std::unique_ptr<MPIX_Win_epoch_s> epoch(new (std::nothrow) MPIX_Win_epoch_s);
  if (epoch == nullptr)
    return make_error(MPI_ERR_NO_MEM, "%s: out of memory for a persistent epoch", kFunction);
  WinEpochs& e = win.epoch;
  if (int err = rma::ranks_of(win, post_group, kFunction, &epoch->origins)) return err;
  if (int err = rma::ranks_of(win, start_group, kFunction, &e.start_ranks)) return err;
  dev::rma::st::StreamWindow* sw = nullptr;
  int err = stream_window_of(win, &sw);
  if (err == MPI_SUCCESS) err = sw->begin_recording(e.start_ranks);
  if (err != MPI_SUCCESS) {
    e.start_ranks.clear();
    return err;
  }
  e.fence = false;
  e.started = true;
  e.stream_access = true;
  for (int target : e.start_ranks) e.start_state[target] = kPostSeen;
  epoch->win = &win;
  epoch->win_handle = win.handle;
  live_epochs().insert(epoch.get());
  *out = epoch.release();
  return MPI_SUCCESS;
}

int win_epoch_commit(MPIX_Win_epoch handle) {
  constexpr const char* kFunction = "MPIX_Win_epoch_commit";
  MPIX_Win_epoch_s* epoch = nullptr;
  if (int err = lookup(handle, kFunction, &epoch)) return err;
  if (!epoch->recording)
    return make_error(MPI_ERR_RMA_SYNC, "%s: epoch=%p (win=0x%x) is already committed", kFunction,
                      static_cast<void*>(handle), win_of(*epoch));
  Win& win = *epoch->win;
  std::unique_ptr<dev::rma::st::AccessPlan> plan = win.stream->end_recording();
  close_recording(win);
  epoch->recording = false;
  return dev::rma::st::PersistentEpoch::create(*win.stream, std::move(epoch->origins),
                                               std::move(plan), &epoch->device);
}

int win_epoch_start_stream(MPIX_Win_epoch handle, void* stream_handle) {
  constexpr const char* kFunction = "MPIX_Win_epoch_start_stream";
  MPIX_Win_epoch_s* epoch = nullptr;
  if (int err = lookup(handle, kFunction, &epoch)) return err;
  if (epoch->recording)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: epoch=%p (win=0x%x) is still being recorded; call "
                      "MPIX_Win_epoch_commit before starting it",
                      kFunction, static_cast<void*>(handle), win_of(*epoch));
  if (epoch->device == nullptr)
    return make_error(MPI_ERR_OTHER, "%s: epoch=%p (win=0x%x) failed at MPIX_Win_epoch_commit",
                      kFunction, static_cast<void*>(handle), win_of(*epoch));
  Win& win = *epoch->win;
  if (int err = check_no_epoch(win, kFunction)) return err;
  stream::Stream* stream = nullptr;
  if (int err = stream::resolve_borrowed(stream_handle, &stream))
    return make_error(util::error_class_of(err), "%s: epoch=%p (win=0x%x): %s", kFunction,
                      static_cast<void*>(handle), win_of(*epoch), util::error_string(err).c_str());
  win.epoch.fence = false;
  return epoch->device->start(*stream);
}

int win_epoch_free(MPIX_Win_epoch* handle) {
  constexpr const char* kFunction = "MPIX_Win_epoch_free";
  MPIX_Win_epoch_s* epoch = *handle;
  if (epoch == MPIX_WIN_EPOCH_NULL || live_epochs().count(epoch) == 0)
    return make_error(MPI_ERR_ARG,
                      "%s: *epoch=%p is not a persistent stream epoch (MPIX_WIN_EPOCH_NULL, "
                      "freed, or not made by MPIX_Win_epoch_init)",
                      kFunction, static_cast<void*>(epoch));
  if (epoch->win != nullptr && epoch->recording) {
    epoch->win->stream->abandon_access();
    close_recording(*epoch->win);
  }
  if (epoch->device != nullptr) epoch->device->drain();
  live_epochs().erase(epoch);
  delete epoch;
  *handle = MPIX_WIN_EPOCH_NULL;
  return MPI_SUCCESS;
}

bool win_epoch_recording(const Win& win) {
  return win.stream != nullptr && win.stream->recording();
}

void win_epochs_window_freed(Win& win) {
  for (MPIX_Win_epoch_s* epoch : live_epochs()) {
    if (epoch->win != &win) continue;
    if (epoch->device != nullptr) epoch->device->drain();
    epoch->device.reset();
    epoch->win = nullptr;
  }
}

}  // namespace stmpi::mpi::mpix

namespace stmpi::impl {

int mpix_win_epoch_init(mpi::Group& post_group, mpi::Group& start_group, mpi::Win& win,
                        MPIX_Win_epoch* epoch) {
  return mpi::mpix::win_epoch_init(post_group, start_group, win, epoch);
}

int mpix_win_epoch_commit(MPIX_Win_epoch epoch) { return mpi::mpix::win_epoch_commit(epoch); }

int mpix_win_epoch_start_stream(MPIX_Win_epoch epoch, void* stream) {
  return mpi::mpix::win_epoch_start_stream(epoch, stream);
}

int mpix_win_epoch_free(MPIX_Win_epoch* epoch) { return mpi::mpix::win_epoch_free(epoch); }

}  // namespace stmpi::impl
