#include "stream/settings.h"

#include <unistd.h>

#include "util/param.h"

namespace stmpi::stream {
namespace {

Settings g_settings;

const char* const kBackendChoices[] = {"auto", "host", "hip", "cuda"};

util::Param with_choices(util::Param param, std::span<const char* const> choices) {
  param.choices = choices;
  return param;
}

const util::Param kParams[] = {
    with_choices({"backend", util::Param::Type::kString, &g_settings.backend, "auto",
                  "stream backend for GPU stream handles: auto (a GPU backend whose runtime "
                  "finds a device, else host), host, hip or cuda; MPIX_Host_stream works with "
                  "every choice"},
                 kBackendChoices),
    {"spin_us", util::Param::Type::kInt, &g_settings.spin_us, "-1",
     "microseconds an idle host-stream executor or a waiting operation busy-polls before it "
     "sleeps (idle: until work arrives) or backs off (wait: yield, then short sleeps); -1: 20 "
     "when each rank and an executor per rank can have a core, else 0"},
    {"poll_sleep_us", util::Param::Type::kInt, &g_settings.poll_sleep_us, "50",
     "longest sleep, in microseconds, between two polls of a host-stream wait operation"},
    {"yield_us", util::Param::Type::kInt, &g_settings.yield_us, "2000",
     "microseconds a host-stream wait (or a thread waiting for its stream) polls with "
     "sched_yield between polls, after the spin and before it sleeps: on a loaded node a "
     "yielding waiter polls again at its next turn, a sleeping one must be woken first; -1: "
     "never sleep"},
    {"polls_per_yield", util::Param::Type::kInt, &g_settings.polls_per_yield, "1",
     "polls of a host-stream wait between two sched_yield calls in its yield phase; 0: the rule "
     "of the device's RMA waits (1000, or 20 when the node's ranks outnumber its cores)"},
    {"caller_runs", util::Param::Type::kBool, &g_settings.caller_runs, "yes",
     "a thread synchronizing a host stream runs the queued operations itself instead of "
     "sleeping until the stream's thread has run them"},
    {"inline", util::Param::Type::kBool, &g_settings.inline_ops, "yes",
     "signals, copies and already satisfied waits enqueued on an idle host stream run at once "
     "on the enqueuing thread instead of being queued"},
    {"progress", util::Param::Type::kBool, &g_settings.progress, "yes",
     "MPI progress of a rank (inside MPI_Win_wait, MPI_Recv, ...) runs the ready signals, "
     "copies and already satisfied waits at the front of the host streams its stream-triggered "
     "windows use, instead of leaving them to the stream's thread; user work is never run there"},
    {"gpu_epoch_bytes", util::Param::Type::kSize, &g_settings.gpu_epoch_bytes, "64K",
     "an access epoch's completion on a GPU stream whose copies total at most this many bytes "
     "(and at most 32 targets and 48 ranges) runs as one kernel (wait, copies, signals) instead "
     "of three launches; 0: always three launches",
     0, 1LL << 30},
    {"stage_host", util::Param::Type::kBool, &g_settings.stage_host, "no",
     "for tests: point-to-point operations and collectives enqueued on a host stream move "
     "their data through staging buffers, as they do for device memory on a GPU stream (the "
     "stream copies in and out), so that path runs on machines without a GPU"},
};
const util::ParamTable kTable{"stream", kParams};
const util::ParamRegistration kRegistration{&kTable};

}  // namespace

int g_ranks_on_node = 1;

const Settings& settings() { return g_settings; }

void set_ranks_on_node(int ranks) { g_ranks_on_node = ranks > 0 ? ranks : 1; }

int effective_polls_per_yield() {
  if (g_settings.polls_per_yield > 0) return g_settings.polls_per_yield;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return g_ranks_on_node > cores ? 20 : 1000;
}

int effective_spin_us() {
  if (g_settings.spin_us >= 0) return g_settings.spin_us;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return 2L * g_ranks_on_node <= cores ? 20 : 0;
}

}  // namespace stmpi::stream
