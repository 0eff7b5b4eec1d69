// Stream-triggered active RMA at the MPI layer: MPIX_Win_post_stream,
// MPIX_Win_complete_stream, MPIX_Win_wait_stream (mpix_win_stream.cc, the C
// entry points) and the hooks through which the one-sided chapter
// (src/mpi/rma) hands stream epochs over. The device part, which plans the
// epochs and enqueues them, is src/device/rma/st.
//
// A stream epoch also sets the ordinary PSCW state (WinEpochs::started with
// every target marked "post seen", WinEpochs::posted), so every rule about
// open epochs (fence, locks, MPI_Win_free, another start or post) applies
// unchanged; the stream flags only change how the epoch is closed and that
// RMA calls are recorded instead of executed.
#pragma once

#include <mpi.h>

#include "mpi/rma/stream_hooks.h"

namespace stmpi::mpi {
struct Datatype;
struct Group;
struct Win;
}  // namespace stmpi::mpi

namespace stmpi::mpi::rma {
struct TargetSpan;
}

namespace stmpi::dev::rma {
struct AccumulateOp;
}

namespace stmpi::dev::rma::st {
class StreamWindow;
struct StreamStats;
struct TriggerStats;
}  // namespace stmpi::dev::rma::st

namespace stmpi::mpi::mpix {

// The calls behind the C entry points (mpix_win_stream.cc).
[[nodiscard]] int win_post_stream(Group& group, Win& win, void* stream);
[[nodiscard]] int win_complete_stream(Win& win, void* stream);
[[nodiscard]] int win_wait_stream(Win& win, void* stream);

// Persistent stream epochs (win_epoch.cc): MPIX_Win_epoch_init, _commit,
// _start_stream, _free.
[[nodiscard]] int win_epoch_init(Group& post_group, Group& start_group, Win& win,
                                 MPIX_Win_epoch* epoch);
[[nodiscard]] int win_epoch_commit(MPIX_Win_epoch epoch);
[[nodiscard]] int win_epoch_start_stream(MPIX_Win_epoch epoch, void* stream);
[[nodiscard]] int win_epoch_free(MPIX_Win_epoch* epoch);
// Whether the window's open access epoch is the recording of a persistent epoch.
bool win_epoch_recording(const Win& win);
// MPI_Win_free (from stream_free): the window's persistent epochs wait for
// their queued starts and lose their window (later calls: MPI_ERR_WIN).
void win_epochs_window_freed(Win& win);
// The checks and the device state every stream epoch of a window shares.
[[nodiscard]] int stream_check_flavor(const Win& win, const char* function);
[[nodiscard]] int stream_window_of(Win& win, dev::rma::st::StreamWindow** out);

// The hooks the one-sided chapter calls are declared in mpi/rma/stream_hooks.h.

// st_stats.cc: a freed window's stream statistics join the process totals
// that MPI_T's st_* performance variables show.
void stream_stats_add_freed(const dev::rma::st::StreamStats& stats);
// Triggered-op statistics of the process: live and freed windows; counters
// in use and their maximum over the process's one pool.
dev::rma::st::TriggerStats process_trigger_stats();

}  // namespace stmpi::mpi::mpix
