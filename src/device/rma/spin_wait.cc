#include "device/rma/spin_wait.h"

#include <sched.h>

#include "device/device.h"

namespace stmpi::dev::rma {
namespace {

void default_yield() { sched_yield(); }

constexpr int kDefaultPolls = 1000;
YieldFn g_yield = default_yield;
const int* g_polls = &kDefaultPolls;

}  // namespace

void set_yield(YieldFn fn, const int* polls_before_yield) {
  g_yield = fn != nullptr ? fn : default_yield;
  g_polls = polls_before_yield != nullptr ? polls_before_yield : &kDefaultPolls;
}

void SpinWait::pause() {
  dev::progress();
  if (++spins_ >= *g_polls) {
    spins_ = 0;
    g_yield();
  }
}

}  // namespace stmpi::dev::rma
