#include "device/rma/rma.h"

#include <atomic>

#include "device/progress.h"

namespace stmpi::dev::rma {

int flush(int target) {
  if (int err = AmRma::flush(target)) return err;
  return NetRma::flush(target);
}

int flush_all() {
  if (int err = AmRma::flush(-1)) return err;
  return NetRma::flush(-1);
}

int wait(Completion& done) {
  if (done.pending.load(std::memory_order_acquire) != 0)
    wait_until([&] { return done.pending.load(std::memory_order_acquire) == 0; });
  return done.error;
}

}  // namespace stmpi::dev::rma
