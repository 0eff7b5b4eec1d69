// The hooks through which the one-sided chapter hands stream epochs
// (MPIX_MODE_STREAM) over to the stream-triggered extension: declared here,
// so this chapter includes nothing of src/mpi/mpix; defined there
// (src/mpi/mpix/win_stream.cc, whose README says what each one does).
#pragma once

#include <mpi.h>

namespace stmpi::mpi {
struct Datatype;
struct Win;
}  // namespace stmpi::mpi

namespace stmpi::mpi::rma {
struct TargetSpan;
}

namespace stmpi::dev::rma {
struct AccumulateOp;
}

namespace stmpi::mpi::mpix {

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

}  // namespace stmpi::mpi::mpix
