#include "device/rma/rma.h"

#include <atomic>

#include "device/rma/spin_wait.h"

namespace stmpi::dev::rma {

int flush(int target) { return AmRma::flush(target); }

int flush_all() { return AmRma::flush(-1); }

int wait(Completion& done) {
  if (done.pending.load(std::memory_order_acquire) != 0)
    spin_until([&] { return done.pending.load(std::memory_order_acquire) == 0; });
  return done.error;
}

}  // namespace stmpi::dev::rma
