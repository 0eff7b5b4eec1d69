// The one wait/backoff policy of the library. Every blocking loop (request
// waits, probes, RMA synchronization, window barriers, lock grants) polls
// progress and calls Backoff::step() once per poll: it spins first (lowest
// latency when the peer has a core of its own) and yields the CPU after
// STMPI_PROGRESS_POLLS_BEFORE_YIELD polls, since ranks often outnumber
// cores and the peer a waiter needs may only run if it yields.
//
// The parameter's default, 0, picks automatically: 1000 polls when every
// rank of this node has a CPU, 20 when ranks outnumber CPUs (set_ranks_on_node
// tells how many share the node). The yield function is the MPI layer's: it
// also releases the global lock under MPI_THREAD_MULTIPLE.
#pragma once

namespace stmpi::util {

using YieldFn = void (*)();

// Installs the function a waiter calls to give up the CPU (nullptr:
// sched_yield).
void set_yield(YieldFn fn);
// How many ranks share this node's CPUs; fixes the budget (called at init,
// after the parameters are loaded).
void set_ranks_on_node(int ranks);

namespace detail {
extern int g_polls_before_yield;
}
// Polls a wait makes before it yields (the parameter or the automatic value).
inline int polls_before_yield() { return detail::g_polls_before_yield; }
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
