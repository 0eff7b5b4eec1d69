// Process-wide MPI state: initialization and the thread level. Read by
// every MPI call's entry check, so the accessors are inline.
#pragma once

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

// Called by blocking waits after spinning a while: gives the CPU (and, with
// MPI_THREAD_MULTIPLE, the global lock) to others for a moment.
void wait_yield();

}  // namespace stmpi::mpi
