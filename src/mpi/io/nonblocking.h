// Nonblocking I/O (MPI_File_iread & co.): one I/O thread per process runs
// the queued operations in order while the caller computes, and completes
// ordinary requests, so MPI_Wait, MPI_Test and their array forms work and
// the status carries the exact count.
//
// The thread calls only the file-system path (read_at / write_at and the
// driver below them) and never takes the global lock, so it cannot
// deadlock with a thread blocked inside MPI under MPI_THREAD_MULTIPLE; it
// publishes a result by writing the request's status and then its
// completion flag (release), which the waiting thread reads (acquire).
// Everything that touches MPI objects (the shared pointer, the individual
// pointer, reference counts) happens in the calling thread when the
// operation is queued, or when the request is freed.
//
// The nonblocking collectives (MPI_File_iread_all & co.) run the two-phase
// path as a collective schedule (nonblocking_coll.cc): its exchanges
// advance whenever the process polls MPI, and the aggregators' file work
// runs on the I/O thread.
#pragma once

#include <functional>

#include <mpi.h>

namespace stmpi::mpi {
struct Datatype;
}

namespace stmpi::mpi::io {

class File;

// An operation for the I/O thread: fills the status, returns the error.
using IoJob = std::function<int(MPI_Status*)>;

// Queues `job` on the I/O thread (started on first use) and returns its
// request in *request. `type` is retained until the request is freed.
[[nodiscard]] int post_job(File& file, const Datatype& type, IoJob job, MPI_Request* request);

// Queues `task` on the I/O thread without a request: it reports its end
// itself (the nonblocking collectives' aggregator work, nonblocking_coll.cc).
void post_task(File& file, IoJob task);

// Waits until no operation of `file` is queued or running (close).
void nonblocking_drain(File& file);

// Finishes the queued operations and joins the thread (MPI_Finalize).
void nonblocking_finalize();

}  // namespace stmpi::mpi::io
