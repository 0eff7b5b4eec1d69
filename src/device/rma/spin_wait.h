// How the device waits for RMA events (a lock grant, a post, a barrier, an
// active-message reply): poll, progressing the device so that this process
// keeps serving others' active messages, and yield every so many polls.
// Ranks often outnumber cores, so a waiter must not keep the CPU its peer
// needs. The yield function and the poll budget are the MPI layer's (the
// same as its other blocking waits; its yield also releases the global lock
// under MPI_THREAD_MULTIPLE); until they are set, sched_yield every 1000.
#pragma once

namespace stmpi::dev::rma {

using YieldFn = void (*)();
// `polls_before_yield` is read at every yield decision, so it may change.
void set_yield(YieldFn fn, const int* polls_before_yield);

class SpinWait {
 public:
  // One round of waiting: progress, and a yield every so many rounds.
  void pause();

 private:
  int spins_ = 0;
};

// Waits until ready() is true.
template <class Ready>
void spin_until(Ready&& ready) {
  SpinWait wait;
  while (!ready()) wait.pause();
}

}  // namespace stmpi::dev::rma
