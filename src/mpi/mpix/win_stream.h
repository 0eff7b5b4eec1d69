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
struct StreamStats;
struct TriggerStats;
}  // namespace stmpi::dev::rma::st

namespace stmpi::mpi::mpix {

// The calls behind the C entry points (mpix_win_stream.cc).
[[nodiscard]] int win_post_stream(Group& group, Win& win, void* stream);
[[nodiscard]] int win_complete_stream(Win& win, void* stream);
[[nodiscard]] int win_wait_stream(Win& win, void* stream);

// --- Hooks for src/mpi/rma ---

// MPI_Win_start with MPIX_MODE_STREAM, before the epoch opens:
// MPI_ERR_RMA_FLAVOR for a window a stream cannot reach.
[[nodiscard]] int stream_start_check(const Win& win);
// After MPI_Win_start opened the access epoch (started, start_ranks set):
// makes it a stream epoch. The stream waits for the posts, never the CPU.
[[nodiscard]] int stream_start(Win& win);

// MPI_Put, MPI_Get, MPI_Accumulate in a stream access epoch
// (win.epoch.stream_access), after the target side was resolved and
// checked: records the call for the stream instead of executing it.
[[nodiscard]] int stream_record_put(Win& win, int target, const rma::TargetSpan& span,
                                    const void* origin, MPI_Count count, const Datatype& type);
[[nodiscard]] int stream_record_get(Win& win, int target, const rma::TargetSpan& span, void* origin,
                                    MPI_Count count, const Datatype& type);
// `type` is null for MPI_NO_OP; `wants_result`: MPI_Get_accumulate and
// MPI_Fetch_and_op, which a stream epoch does not defer.
[[nodiscard]] int stream_record_accumulate(Win& win, int target, const rma::TargetSpan& span,
                                           const void* origin, MPI_Count count,
                                           const Datatype* type, const dev::rma::AccumulateOp& acc,
                                           bool wants_result, const char* function);
// Other RMA calls in a stream access epoch: MPI_ERR_UNSUPPORTED_OPERATION.
[[nodiscard]] int stream_unsupported(const Win& win, const char* function);

// MPI_Win_complete on a stream access epoch, MPI_Win_wait / MPI_Win_test on
// a stream exposure epoch: MPI_ERR_RMA_SYNC naming the right call.
[[nodiscard]] int check_not_stream_access(const Win& win, const char* function);
[[nodiscard]] int check_not_stream_exposure(const Win& win, const char* function);

// MPI_Win_free, before the window memory goes away: waits until every
// stream the window used has run the window's stream work.
[[nodiscard]] int stream_free(Win& win);

// st_stats.cc: a freed window's stream statistics join the process totals
// that MPI_T's st_* performance variables show.
void stream_stats_add_freed(const dev::rma::st::StreamStats& stats);
// Triggered-op statistics of the process: live and freed windows; counters
// in use and their maximum over the process's one pool.
dev::rma::st::TriggerStats process_trigger_stats();

}  // namespace stmpi::mpi::mpix
