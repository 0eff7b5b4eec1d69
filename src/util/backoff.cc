#include "util/backoff.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "util/param.h"

namespace stmpi::util {
namespace {

constexpr int kOwnCpuPolls = 1 << 14;   // every rank has a CPU of its own: about a time slice
constexpr int kLockSharedPolls = 1000;  // MPI_THREAD_MULTIPLE: hand the global lock over

int g_param = 0;  // STMPI_PROGRESS_POLLS_BEFORE_YIELD; 0: automatic
int g_ranks_on_node = 1;
int g_node_cpus = 0;        // CPUs the node's ranks may run on; 0: the online CPUs
bool g_cpu_shared = false;  // two ranks are bound to the same single CPU
bool g_lock_shared = false;
bool g_host_progress = false;  // a provider progresses in host threads of this process
YieldFn g_yield = nullptr;

const Param kParams[] = {
    {"polls_before_yield", Param::Type::kInt, &g_param, "0",
     "polls a blocking wait (requests, probes, RMA synchronization, locks) makes before yielding "
     "the CPU; 0: automatic, 20 when ranks outnumber their CPUs or a network provider "
     "progresses in host threads, 1000 under "
     "MPI_THREAD_MULTIPLE, else 16384",
     0, INT_MAX},
};
const ParamTable kTable{"progress", kParams};
const ParamRegistration kRegistration{&kTable};

int automatic_polls() {
  const long cpus = g_node_cpus > 0 ? g_node_cpus : sysconf(_SC_NPROCESSORS_ONLN);
  if (g_cpu_shared || g_host_progress || (cpus > 0 && g_ranks_on_node > cpus))
    return kOversubscribedPolls;
  return g_lock_shared ? kLockSharedPolls : kOwnCpuPolls;
}

void update_polls() {
  detail::g_polls_before_yield.store(g_param > 0 ? g_param : automatic_polls(),
                                     std::memory_order_relaxed);
}

}  // namespace

namespace detail {
std::atomic<int> g_polls_before_yield{kLockSharedPolls};
}

void set_yield(YieldFn fn) { g_yield = fn; }

void set_ranks_on_node(int ranks) {
  g_ranks_on_node = ranks;
  update_polls();
}

// Ranks bound to single CPUs (mpiexec's default when each gets a core) are each
// alone on theirs unless two share one (taskset -c 0 mpiexec -n 2): compare.
void set_node_cpus(std::span<const pid_t> local_ranks) {
  cpu_set_t all;
  CPU_ZERO(&all);
  std::vector<int> single;  // the CPU of each rank bound to exactly one
  for (pid_t pid : local_ranks) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (pid <= 0 || sched_getaffinity(pid, sizeof mask, &mask) != 0) return;  // keep the default
    CPU_OR(&all, &all, &mask);
    if (CPU_COUNT(&mask) == 1) {
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &mask)) single.push_back(cpu);
    }
  }
  std::sort(single.begin(), single.end());
  g_cpu_shared = std::adjacent_find(single.begin(), single.end()) != single.end();
  g_node_cpus = CPU_COUNT(&all);
  update_polls();
}

void set_lock_shared_by_threads(bool shared) {
  g_lock_shared = shared;
  update_polls();
}

void set_host_progress_threads(bool present) {
  g_host_progress = present;
  update_polls();
}

void yield_now() {
  if (g_yield != nullptr) g_yield();
  else sched_yield();
}

}  // namespace stmpi::util
