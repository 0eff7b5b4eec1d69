// MPI_Session (MPI 4.1 chapter 11, the Sessions Model): the object, its
// handle table and the raising of errors on a session's error handler.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include "mpi/handle.h"

namespace stmpi::mpi {

struct Errhandler;

struct Session {
  int handle = 0;
  Errhandler* errhandler = nullptr;  // retained
  int thread_level = 0;
  std::vector<std::pair<std::string, std::string>> info;  // from MPI_Session_init
};

// nullptr for MPI_SESSION_NULL, freed and unknown handles.
Session* session_get(int handle);
// Applies the session's error handler to a failed call; returns the code
// for the caller to return (if the handler returns at all).
int session_raise(Session* session, int code, const char* function);

}  // namespace stmpi::mpi
