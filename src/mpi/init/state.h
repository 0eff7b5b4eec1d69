// Process-wide MPI state: initialization and the thread level. Read by
// every MPI call's entry check, so the accessors are inline.
#pragma once

#include "util/backoff.h"

namespace stmpi::mpi {

struct ProcessState {
  bool initialized = false;
  bool finalized = false;
  int thread_level = 0;  // MPI_THREAD_SINGLE
};

inline ProcessState g_process_state;

inline bool is_initialized() { return g_process_state.initialized; }
inline bool is_finalized() { return g_process_state.finalized; }
inline int thread_level() { return g_process_state.thread_level; }

// Gives the CPU (and, with MPI_THREAD_MULTIPLE, the global lock) to
// others for a moment.
void wait_yield();

// Every blocking loop calls step() once per poll: the device's one backoff
// policy (util/backoff.h, STMPI_PROGRESS_POLLS_BEFORE_YIELD), which yields
// through wait_yield().
using WaitBackoff = util::Backoff;

}  // namespace stmpi::mpi
