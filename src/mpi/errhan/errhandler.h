// MPI_Errhandler objects and the raising of errors on communicators.
#pragma once

#include <atomic>

#include <mpi.h>

#include "mpi/handle.h"

namespace stmpi::mpi {

struct Comm;

struct Errhandler {
  enum class Kind { kFatal, kReturn, kAbort, kUserComm, kUserWin, kUserFile, kUserSession };
  int handle = 0;
  Kind kind = Kind::kFatal;
  MPI_Comm_errhandler_function* comm_fn = nullptr;
  MPI_Win_errhandler_function* win_fn = nullptr;
  MPI_File_errhandler_function* file_fn = nullptr;
  MPI_Session_errhandler_function* session_fn = nullptr;
  std::atomic<int> refs{1};
  bool predefined = false;
};

HandleTable<Errhandler, ObjectKind::kErrhandler>& errhandler_table();
Errhandler* errhandler_get(int handle);
void errhandler_retain(Errhandler* eh);
void errhandler_release(Errhandler* eh);

namespace errhan {
void init_predefined();
// Applies `comm`'s error handler (COMM_SELF's when comm is null) to a
// failed call. Returns the code for the caller to return (if the handler
// returns at all).
int raise_on_comm(Comm* comm, int code, const char* function);
// Prints the message and aborts the whole job.
[[noreturn]] void abort_job(int code, const char* function);
}  // namespace errhan

}  // namespace stmpi::mpi
