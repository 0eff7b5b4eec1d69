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

// Gives the CPU (and, with MPI_THREAD_MULTIPLE, the global lock) to
// others for a moment.
void wait_yield();

// How many polls a blocking wait makes before it yields
// (STMPI_PROGRESS_POLLS_BEFORE_YIELD).
extern int g_polls_before_yield;

// Every blocking loop calls step() once per poll: it spins first (lowest
// latency when the peer has its own core) and then yields now and then,
// since ranks often outnumber cores.
class WaitBackoff {
 public:
  void step() {
    if (++polls_ >= g_polls_before_yield) {
      polls_ = 0;
      wait_yield();
    }
  }

 private:
  int polls_ = 0;
};

}  // namespace stmpi::mpi
