// How the device waits for RMA events (a lock grant, a post, a barrier, an
// active-message reply): poll briefly, progressing the device so that this
// process keeps serving others' active messages, then yield. Ranks often
// outnumber cores, so a waiter must not keep the CPU its peer needs. The
// yield function is the MPI layer's (it also releases the global lock under
// MPI_THREAD_MULTIPLE); until it is set, sched_yield.
#pragma once

namespace stmpi::dev::rma {

using YieldFn = void (*)();
void set_yield(YieldFn fn);

class SpinWait {
 public:
  // One round of waiting: progress, and every kSpins rounds a yield.
  void pause();

 private:
  static constexpr int kSpins = 64;
  int spins_ = 0;
};

// Waits until ready() is true.
template <class Ready>
void spin_until(Ready&& ready) {
  SpinWait wait;
  while (!ready()) wait.pause();
}

}  // namespace stmpi::dev::rma
