// The MPIX_Win_*_stream calls of stream-triggered RMA (include/mpix.h).
// Their wrappers are generated (maint/mpix.spec) and have checked the window,
// the group and the output pointers; errors go to the window's error handler.
#include <mpi.h>
#include <mpix.h>

#include <algorithm>
#include <cstring>

#include "device/rma/st/stream_window.h"
#include "mpi/mpix/impl_mpix.h"
#include "mpi/mpix/win_stream.h"
#include "mpi/rma/win.h"
#include "util/error.h"

namespace stmpi::impl {
namespace {

dev::rma::st::StreamStats stats_of(mpi::Win& win) {
  return win.stream != nullptr ? win.stream->stats() : dev::rma::st::StreamStats{};
}

}  // namespace

int mpix_win_post_stream(mpi::Group& group, mpi::Win& win, void* stream) {
  return mpi::mpix::win_post_stream(group, win, stream);
}

int mpix_win_complete_stream(mpi::Win& win, void* stream) {
  return mpi::mpix::win_complete_stream(win, stream);
}

int mpix_win_wait_stream(mpi::Win& win, void* stream) {
  return mpi::mpix::win_wait_stream(win, stream);
}

int mpix_win_get_stream_stats(mpi::Win& win, long long* epochs, long long* signal_launches,
                              long long* copy_launches, long long* wait_launches) {
  const dev::rma::st::StreamStats s = stats_of(win);
  *epochs = static_cast<long long>(s.access_epochs + s.exposure_epochs);
  *signal_launches = static_cast<long long>(s.launches.signal);
  *copy_launches = static_cast<long long>(s.launches.copy);
  *wait_launches = static_cast<long long>(s.launches.wait);
  return MPI_SUCCESS;
}

int mpix_win_get_stream_pending(mpi::Win& win, long long* pending_epochs) {
  *pending_epochs = static_cast<long long>(stats_of(win).pending_plans);
  return MPI_SUCCESS;
}

// win is nullptr for MPI_WIN_NULL: the process's statistics.
int mpix_win_get_stream_trigger_stats(mpi::Win* win, MPIX_Stream_trigger_stats* stats, int size) {
  if (size <= 0 || size % static_cast<int>(sizeof(long long)) != 0)
    return util::make_error(
        MPI_ERR_ARG, "size=%d is not sizeof(MPIX_Stream_trigger_stats) of any version (%zu now)",
        size, sizeof(MPIX_Stream_trigger_stats));
  const dev::rma::st::TriggerStats t =
      win != nullptr ? stats_of(*win).trigger : mpi::mpix::process_trigger_stats();
  const long long values[] = {static_cast<long long>(t.posted),
                              static_cast<long long>(t.fired),
                              static_cast<long long>(t.software_fired),
                              static_cast<long long>(t.counters_in_use),
                              static_cast<long long>(t.counters_max_in_use),
                              static_cast<long long>(t.throttle_stalls),
                              static_cast<long long>(t.throttle_ns),
                              static_cast<long long>(t.throttle_reclaimed),
                              static_cast<long long>(t.throttle_overlapped)};
  static_assert(sizeof values == sizeof(MPIX_Stream_trigger_stats));
  std::memcpy(stats, values, std::min(sizeof values, static_cast<std::size_t>(size)));
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
