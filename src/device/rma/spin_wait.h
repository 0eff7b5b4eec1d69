// RMA's names for the device's one wait policy (device/progress.h): poll,
// progressing the device so that this process keeps serving others' active
// messages, and yield per util/backoff.h.
#pragma once

#include "device/progress.h"
#include "util/backoff.h"

namespace stmpi::dev::rma {

class SpinWait {
 public:
  // One round of waiting: progress, and a yield every so many rounds.
  void pause() {
    dev::progress();
    backoff_.step();
  }

 private:
  util::Backoff backoff_;
};

// Waits until ready() is true.
template <class Ready>
void spin_until(Ready&& ready) {
  dev::wait_until(ready);
}

}  // namespace stmpi::dev::rma
