// The one wait/backoff policy of the library. Every blocking loop (request
// waits, probes, RMA synchronization, window barriers, lock grants) polls
// progress and calls Backoff::step() once per poll: it spins first (lowest
// latency when the peer has a core of its own) and yields the CPU after
// STMPI_PROGRESS_POLLS_BEFORE_YIELD polls, since ranks often outnumber
// cores and the peer a waiter needs may only run if it yields.
//
// The parameter's default, 0, picks automatically (set_ranks_on_node and
// set_node_cpus tell how many ranks share which CPUs):
//   - ranks outnumber the CPUs they may run on, or two ranks are bound to the
//     same CPU: yield after 20 polls (the peer needs this CPU);
//   - MPI_THREAD_MULTIPLE: yield after 1000 polls (other threads wait for
//     the global lock, which the yield hands over);
//   - a network provider of this process progresses in host threads (its own
//     progress thread, or ours: set_host_progress_threads): yield after 20
//     polls too, since a waiter that spins for a time slice keeps those
//     threads, which apply other ranks' one-sided operations and deliver
//     messages, from running (PSCW epochs across nodes took 12 ms instead of
//     0.3 ms on the sockets provider, lock + put + unlock 5 ms against a target
//     waiting in a collective on tcp;ofi_rxm);
//   - otherwise every rank has a CPU of its own: yield only after 2^14 polls
//     (a millisecond or two, about a scheduler time slice), close to MPICH's
//     waits, which never yield. A yield here only hands the rest of the time
//     slice to unrelated processes: under background load each one costs a
//     busy neighbour's whole slice (milliseconds), which made small blocking
//     operations 10-400x slower than MPICH's when the period was 1000 polls
//     (50-100 us); the bound keeps a rank that shares its CPU unnoticed from
//     spinning much longer than the scheduler would let it anyway.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <span>

namespace stmpi::util {

using YieldFn = void (*)();

// Installs the function a waiter calls to give up the CPU (nullptr:
// sched_yield).
void set_yield(YieldFn fn);
// How many ranks share this node's CPUs; fixes the budget (called at init,
// after the parameters are loaded).
void set_ranks_on_node(int ranks);
// The processes of this node's ranks: their CPU affinity tells whether each
// rank has a CPU of its own (called at init, after set_ranks_on_node).
void set_node_cpus(std::span<const pid_t> local_ranks);
// Whether other threads wait for the global lock (MPI_THREAD_MULTIPLE).
void set_lock_shared_by_threads(bool shared);
// Whether a network provider of this process progresses in host threads
// that need CPU time while the rank waits (called by the network module).
void set_host_progress_threads(bool present);

// The automatic period where ranks outnumber their CPUs.
inline constexpr int kOversubscribedPolls = 20;

namespace detail {
extern std::atomic<int> g_polls_before_yield;
}
// Polls a wait makes before it yields (the parameter or the automatic value).
inline int polls_before_yield() {
  return detail::g_polls_before_yield.load(std::memory_order_relaxed);
}
// Yields now, through the installed function.
void yield_now();

class Backoff {
 public:
  // One poll done: yields every polls_before_yield() calls.
  void step() {
    if (++polls_ >= polls_before_yield()) {
      polls_ = 0;
      yield_now();
    }
  }

 private:
  int polls_ = 0;
};

}  // namespace stmpi::util
