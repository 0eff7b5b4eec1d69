#include "util/backoff.h"

#include <sched.h>
#include <unistd.h>

#include "util/param.h"

namespace stmpi::util {
namespace {

constexpr int kDedicatedPolls = 1000;     // every rank has a CPU: spin long
constexpr int kOversubscribedPolls = 20;  // ranks outnumber CPUs: yield soon

int g_param = 0;  // STMPI_PROGRESS_POLLS_BEFORE_YIELD; 0: automatic
int g_ranks_on_node = 1;
YieldFn g_yield = nullptr;

const Param kParams[] = {
    {"polls_before_yield", Param::Type::kInt, &g_param, "0",
     "polls a blocking wait (requests, probes, RMA synchronization, locks) makes before yielding "
     "the CPU; 0: automatic, 1000 when every rank of the node has a CPU, 20 when ranks outnumber "
     "CPUs"},
};
const ParamTable kTable{"progress", kParams};
const ParamRegistration kRegistration{&kTable};

int automatic_polls() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 && g_ranks_on_node > cpus ? kOversubscribedPolls : kDedicatedPolls;
}

}  // namespace

namespace detail {
int g_polls_before_yield = kDedicatedPolls;
}

void set_yield(YieldFn fn) { g_yield = fn; }

void set_ranks_on_node(int ranks) {
  g_ranks_on_node = ranks;
  detail::g_polls_before_yield = g_param > 0 ? g_param : automatic_polls();
}

void yield_now() {
  if (g_yield != nullptr) g_yield();
  else sched_yield();
}

}  // namespace stmpi::util
