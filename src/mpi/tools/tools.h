// The tool information interface (MPI_T, MPI 4.1 chapter 15): what the
// three files of this folder share. Control variables are the runtime
// parameters (util/param.h), performance variables the statistics modules
// register (util/pvar.h), categories one per module. The lists are built
// once, at the first MPI_T_init_thread, from the registered tables, so an
// index stays valid for the life of the process.
#pragma once

#include <mpi.h>

#include <mutex>
#include <string>
#include <vector>

#include "util/param.h"
#include "util/pvar.h"

namespace stmpi::mpi::tools {

struct Cvar {
  const util::ParamTable* table;
  const util::Param* param;
  std::string name;  // the environment variable: STMPI_SHM_CELL_SIZE
  int category;
};

struct Pvar {
  const util::PvarTable* table;
  const util::Pvar* pvar;
  std::string name;  // <module>_<name>: match_unexpected_messages
  int category;
};

struct Category {
  std::string name;  // the module: "shm"
  std::vector<int> cvars;
  std::vector<int> pvars;
};

const std::vector<Cvar>& cvars();
const std::vector<Pvar>& pvars();
const std::vector<Category>& categories();

// Serializes the MPI_T calls among themselves (they may be made before
// MPI_Init, from any thread).
std::mutex& mutex();

// Between a successful MPI_T_init_thread and the matching MPI_T_finalize.
bool initialized();

// MPI_T's string convention: with `length` NULL nothing is returned; with
// `buffer` NULL or *length 0, *length is set to the size the string needs
// (terminating NUL included); else at most *length - 1 characters and a NUL
// are written and *length is set to what was written, NUL included.
void copy_string(const std::string& text, char* buffer, int* length);

// Called by MPI_T_finalize when the last nesting level ends: frees every
// handle and session, so none stays valid.
void free_cvar_handles();
void free_pvar_sessions();

}  // namespace stmpi::mpi::tools
