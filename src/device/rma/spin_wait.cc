#include "device/rma/spin_wait.h"

#include <sched.h>

#include "device/device.h"

namespace stmpi::dev::rma {
namespace {

void default_yield() { sched_yield(); }

YieldFn g_yield = default_yield;

}  // namespace

void set_yield(YieldFn fn) { g_yield = fn != nullptr ? fn : default_yield; }

void SpinWait::pause() {
  dev::progress();
  if (++spins_ == kSpins) {
    spins_ = 0;
    g_yield();
  }
}

}  // namespace stmpi::dev::rma
