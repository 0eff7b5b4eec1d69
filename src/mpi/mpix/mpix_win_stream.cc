// The C entry points of stream-triggered RMA (include/mpix.h). They are
// extensions, not in the MPI Forum's API data, so they are written here
// rather than generated; each checks its arguments like a generated wrapper
// (errors go to the window's error handler) and calls src/mpi/mpix.
#include <mpi.h>
#include <mpix.h>

#include <algorithm>
#include <cstring>

#include "binding/call.h"
#include "device/rma/st/stream_window.h"
#include "mpi/mpix/win_stream.h"
#include "mpi/rma/win.h"
#include "util/error.h"

using stmpi::binding::Call;

namespace {

stmpi::dev::rma::st::StreamStats stats_of(stmpi::mpi::Win& win) {
  return win.stream != nullptr ? win.stream->stats() : stmpi::dev::rma::st::StreamStats{};
}

}  // namespace

extern "C" STMPI_API int PMPIX_Win_post_stream(MPI_Group group, MPI_Win win, void* stream) {
  Call call("MPIX_Win_post_stream");
  stmpi::mpi::Win* win_obj = call.win(win, "win");
  stmpi::mpi::Group* group_obj = call.group(group, "group");
  if (call.failed()) return call.result();
  return call.finish(stmpi::mpi::mpix::win_post_stream(*group_obj, *win_obj, stream));
}

extern "C" STMPI_API int PMPIX_Win_complete_stream(MPI_Win win, void* stream) {
  Call call("MPIX_Win_complete_stream");
  stmpi::mpi::Win* win_obj = call.win(win, "win");
  if (call.failed()) return call.result();
  return call.finish(stmpi::mpi::mpix::win_complete_stream(*win_obj, stream));
}

extern "C" STMPI_API int PMPIX_Win_wait_stream(MPI_Win win, void* stream) {
  Call call("MPIX_Win_wait_stream");
  stmpi::mpi::Win* win_obj = call.win(win, "win");
  if (call.failed()) return call.result();
  return call.finish(stmpi::mpi::mpix::win_wait_stream(*win_obj, stream));
}

extern "C" STMPI_API int PMPIX_Win_get_stream_stats(MPI_Win win, long long* epochs,
                                                    long long* signal_launches,
                                                    long long* copy_launches,
                                                    long long* wait_launches) {
  Call call("MPIX_Win_get_stream_stats");
  stmpi::mpi::Win* win_obj = call.win(win, "win");
  call.not_null(epochs, "epochs");
  call.not_null(signal_launches, "signal_launches");
  call.not_null(copy_launches, "copy_launches");
  call.not_null(wait_launches, "wait_launches");
  if (call.failed()) return call.result();
  const stmpi::dev::rma::st::StreamStats s = stats_of(*win_obj);
  *epochs = static_cast<long long>(s.access_epochs + s.exposure_epochs);
  *signal_launches = static_cast<long long>(s.launches.signal);
  *copy_launches = static_cast<long long>(s.launches.copy);
  *wait_launches = static_cast<long long>(s.launches.wait);
  return MPI_SUCCESS;
}

extern "C" STMPI_API int PMPIX_Win_get_stream_pending(MPI_Win win, long long* pending_epochs) {
  Call call("MPIX_Win_get_stream_pending");
  stmpi::mpi::Win* win_obj = call.win(win, "win");
  call.not_null(pending_epochs, "pending_epochs");
  if (call.failed()) return call.result();
  *pending_epochs = static_cast<long long>(stats_of(*win_obj).pending_plans);
  return MPI_SUCCESS;
}

extern "C" STMPI_API int PMPIX_Win_get_stream_trigger_stats(MPI_Win win,
                                                            MPIX_Stream_trigger_stats* stats,
                                                            int size) {
  Call call("MPIX_Win_get_stream_trigger_stats");
  stmpi::mpi::Win* win_obj = win == MPI_WIN_NULL ? nullptr : call.win(win, "win");
  call.not_null(stats, "stats");
  if (!call.failed() && (size <= 0 || size % static_cast<int>(sizeof(long long)) != 0))
    return call.finish(stmpi::util::make_error(
        MPI_ERR_ARG, "size=%d is not sizeof(MPIX_Stream_trigger_stats) of any version (%zu now)",
        size, sizeof(MPIX_Stream_trigger_stats)));
  if (call.failed()) return call.result();
  const stmpi::dev::rma::st::TriggerStats t =
      win_obj != nullptr ? stats_of(*win_obj).trigger : stmpi::mpi::mpix::process_trigger_stats();
  const long long values[] = {
      static_cast<long long>(t.posted),          static_cast<long long>(t.fired),
      static_cast<long long>(t.software_fired),  static_cast<long long>(t.counters_in_use),
      static_cast<long long>(t.counters_max_in_use), static_cast<long long>(t.throttle_stalls),
      static_cast<long long>(t.throttle_ns)};
  static_assert(sizeof values == sizeof(MPIX_Stream_trigger_stats));
  std::memcpy(stats, values, std::min(sizeof values, static_cast<std::size_t>(size)));
  return MPI_SUCCESS;
}

// MPIX_X is a weak alias of PMPIX_X, as MPI_X is of PMPI_X.
extern "C" STMPI_API decltype(PMPIX_Win_post_stream) MPIX_Win_post_stream
    __attribute__((weak, alias("PMPIX_Win_post_stream")));
extern "C" STMPI_API decltype(PMPIX_Win_complete_stream) MPIX_Win_complete_stream
    __attribute__((weak, alias("PMPIX_Win_complete_stream")));
extern "C" STMPI_API decltype(PMPIX_Win_wait_stream) MPIX_Win_wait_stream
    __attribute__((weak, alias("PMPIX_Win_wait_stream")));
extern "C" STMPI_API decltype(PMPIX_Win_get_stream_stats) MPIX_Win_get_stream_stats
    __attribute__((weak, alias("PMPIX_Win_get_stream_stats")));
extern "C" STMPI_API decltype(PMPIX_Win_get_stream_pending) MPIX_Win_get_stream_pending
    __attribute__((weak, alias("PMPIX_Win_get_stream_pending")));
extern "C" STMPI_API decltype(PMPIX_Win_get_stream_trigger_stats) MPIX_Win_get_stream_trigger_stats
    __attribute__((weak, alias("PMPIX_Win_get_stream_trigger_stats")));
