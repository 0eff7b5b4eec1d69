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
struct StreamStats;
struct TriggerStats;
}  // namespace stmpi::dev::rma::st

namespace stmpi::mpi::mpix {

// The calls behind the C entry points (mpix_win_stream.cc).
[[nodiscard]] int win_post_stream(Group& group, Win& win, void* stream);
[[nodiscard]] int win_complete_stream(Win& win, void* stream);
[[nodiscard]] int win_wait_stream(Win& win, void* stream);

// The hooks the one-sided chapter calls are declared in mpi/rma/stream_hooks.h.

// st_stats.cc: a freed window's stream statistics join the process totals
// that MPI_T's st_* performance variables show.
void stream_stats_add_freed(const dev::rma::st::StreamStats& stats);
// Triggered-op statistics of the process: live and freed windows; counters
// in use and their maximum over the process's one pool.
dev::rma::st::TriggerStats process_trigger_stats();

}  // namespace stmpi::mpi::mpix
