// Process-wide MPI state: initialization and the thread level. Read by
// every MPI call's entry check, so the accessors are inline.
#pragma once

#include <atomic>
#include <mutex>

#include <mpi.h>

namespace stmpi::mpi {

struct ProcessState {
  bool initialized = false;  // between MPI_Init and MPI_Finalize (the World Model)
  bool finalized = false;    // MPI_Finalize was called
  int sessions = 0;          // open MPI sessions (the Sessions Model)
  bool library_up = false;   // PMI, device and predefined objects are up
  int thread_level = 0;      // MPI_THREAD_SINGLE
  // MPI's own threads call MPI (stream operations, MPIX_Stream): calls
  // take the global lock at every thread level. Set once, never cleared.
  std::atomic<bool> locking_forced{false};
};

inline ProcessState g_process_state;

// "MPI may be called": between MPI_Init and MPI_Finalize, or while a
// session is open (with or without MPI_Init, MPI 4.1 chapter 11).
inline bool is_initialized() { return g_process_state.initialized || g_process_state.sessions > 0; }
inline bool is_finalized() { return g_process_state.finalized && g_process_state.sessions == 0; }

// Brings the library up (PMI, device, predefined objects, MPI_COMM_WORLD
// and MPI_COMM_SELF) once, for MPI_Init or the first MPI_Session_init;
// later calls only raise the thread level. Tears it down when neither
// holds it any more (after MPI_Finalize and the last MPI_Session_finalize).
[[nodiscard]] int library_start(int required_thread_level);
[[nodiscard]] int library_stop_if_unused();
inline int thread_level() { return g_process_state.thread_level; }
// Whether MPI calls serialize on the global lock.
inline bool calls_locked() {
  return g_process_state.thread_level == MPI_THREAD_MULTIPLE ||
         g_process_state.locking_forced.load(std::memory_order_relaxed);
}

// The lock serializing MPI calls under MPI_THREAD_MULTIPLE. A thread inside
// an MPI call holds it (the bindings take it for the whole call);
// blocking waits release it while they yield (wait_yield).
std::mutex& global_mutex();
// Whether this thread holds it (set by whoever locks it: the bindings, the
// stream operations of src/mpi/enqueue); wait_yield releases only then.
inline thread_local bool t_holds_global_lock = false;

// Holds the global lock for a scope, noting it for wait_yield.
class GlobalLockScope {
 public:
  GlobalLockScope() : lock_(global_mutex()) { t_holds_global_lock = true; }
  ~GlobalLockScope() { t_holds_global_lock = false; }
  GlobalLockScope(const GlobalLockScope&) = delete;
  GlobalLockScope& operator=(const GlobalLockScope&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
};

// Releases the global lock for a scope if this thread holds it (and takes
// it back at the end): around calls that may block until another thread
// has run work that takes the lock. A GPU runtime's launch blocks while the
// stream's launch queue is full, until the GPU has run earlier work, and
// that work includes the host functions of src/mpi/enqueue, which take the
// lock. `release` false: does nothing.
class GlobalUnlockScope {
 public:
  explicit GlobalUnlockScope(bool release) : held_(release && t_holds_global_lock) {
    if (!held_) return;
    t_holds_global_lock = false;
    global_mutex().unlock();
  }
  ~GlobalUnlockScope() {
    if (!held_) return;
    global_mutex().lock();
    t_holds_global_lock = true;
  }
  GlobalUnlockScope(const GlobalUnlockScope&) = delete;
  GlobalUnlockScope& operator=(const GlobalUnlockScope&) = delete;

 private:
  bool held_;
};

// Gives the CPU (and, with MPI_THREAD_MULTIPLE, the global lock) to
// others for a moment. The blocking loops' backoff policy (util::Backoff,
// through dev::ProgressWait and dev::wait_until in device/progress.h) yields
// through it.
void wait_yield();

}  // namespace stmpi::mpi
