// The shared file pointer and the per-file state of the collective calls.
//
// The shared pointer (in etypes of the current view) is one 64-bit word in
// a window over the file's communicator, held by rank 0. Every process
// keeps a shared lock_all epoch open on it from open to close, so a move is
// one MPI_Fetch_and_op (MPI_SUM, MPI_NO_OP to read, MPI_REPLACE to set)
// plus a flush: the passive-target atomics of the device, no lock file and
// no message to a server process.
//
// Ordered mode (read/write_ordered): an exclusive scan of the sizes gives
// each process its place, the last process moves the pointer by the total
// with one fetch-and-op and broadcasts the old value; the data then moves
// by the collective path at explicit offsets.
#pragma once

#include <mpi.h>

namespace stmpi::mpi {
struct Datatype;
struct Win;
}  // namespace stmpi::mpi

namespace stmpi::mpi::io {

class File;

// A split collective (MPI_File_*_begin / *_end) in progress: the begin
// runs the whole operation; the end hands back its status. MPI allows one
// per file at a time.
struct SplitCollective {
  enum class Kind {
    kNone,
    kReadAll,
    kWriteAll,
    kReadAtAll,
    kWriteAtAll,
    kReadOrdered,
    kWriteOrdered
  };
  Kind kind = Kind::kNone;
  const void* buf = nullptr;
  int error = MPI_SUCCESS;
  MPI_Status status{};
};

struct SharedPointer {
  MPI_Win handle = MPI_WIN_NULL;
  Win* win = nullptr;
  SplitCollective split;
};

// Called by the collective open (after the file exists on every process)
// and by close (before the communicator goes).
int shared_open(File& file);
void shared_close(File& file);

// Moves the shared pointer by `delta` etypes and returns its old value.
[[nodiscard]] int shared_fetch_add(File& file, MPI_Offset delta, MPI_Offset* old);

// Shared-pointer access: the pointer moves by the size of the data, then
// the data moves through the independent path at the old position.
[[nodiscard]] int read_shared(File& file, void* buf, MPI_Count count, const Datatype& type,
                              MPI_Status* status);
[[nodiscard]] int write_shared(File& file, const void* buf, MPI_Count count, const Datatype& type,
                               MPI_Status* status);
// Ordered mode (collective): data in rank order from the shared pointer.
[[nodiscard]] int read_ordered(File& file, void* buf, MPI_Count count, const Datatype& type,
                               MPI_Status* status);
[[nodiscard]] int write_ordered(File& file, const void* buf, MPI_Count count, const Datatype& type,
                                MPI_Status* status);

// Split collectives: begin (runs the operation and records it) and end
// (checks and returns its status). `function` names the call in errors.
[[nodiscard]] int split_begin(File& file, SplitCollective::Kind kind, const void* buf, int error,
                              const MPI_Status& status, const char* function);
[[nodiscard]] int split_end(File& file, SplitCollective::Kind kind, const void* buf,
                            MPI_Status* status, const char* function);
// Whether a split collective is in progress on the file (a begin without end).
bool split_active(const File& file);

}  // namespace stmpi::mpi::io
