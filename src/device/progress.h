// The device's one progress engine and the one way to wait.
//
// progress() polls every transport (arrivals, queued sends) and then runs
// the registered hooks: modules that need to be driven while a process
// waits (collective schedules, the software trigger engine) register a
// function instead of being polled from every wait loop. A hook returns how
// much it advanced (0: nothing to do); it runs under the caller's lock and
// may send, receive and register or remove hooks.
//
// wait_until(done) is the one blocking loop: progress, check, and yield per
// the one backoff policy (util/backoff.h, STMPI_PROGRESS_POLLS_BEFORE_YIELD);
// ProgressWait is the same loop for waits that do more between checks.
#pragma once

#include "util/backoff.h"

namespace stmpi::dev {

using ProgressHookFn = int (*)(void* arg);

// Registers fn(arg) to run at every progress(); returns an id (>= 0).
int add_progress_hook(ProgressHookFn fn, void* arg);
// Removes a hook; safe from inside a hook (itself included).
void remove_progress_hook(int id);

// Moves messages on every transport and runs the hooks.
void progress();

// One blocking wait: each pause() is a round of it (progress, so that this
// process keeps serving the others, and a yield every so many rounds).
class ProgressWait {
 public:
  void pause() {
    progress();
    backoff_.step();
  }

 private:
  util::Backoff backoff_;
};

// Waits, progressing, until done() is true.
template <class Pred>
void wait_until(Pred&& done) {
  ProgressWait wait;
  while (!done()) wait.pause();
}

}  // namespace stmpi::dev
