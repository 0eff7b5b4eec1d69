#include "device/ofi/settings.h"

#include <climits>

#include "util/param.h"

namespace stmpi::dev::ofi {
namespace {

Settings g_settings;

using util::Param;

const char* const kAutoYesNo[] = {"auto", "yes", "no"};
const char* const kDataProgressChoices[] = {"provider", "manual"};
const char* const kProgressBlockChoices[] = {"auto", "no"};

Param with_choices(Param param, std::span<const char* const> choices) {
  param.choices = choices;
  return param;
}

const Param kParams[] = {
    {"provider", Param::Type::kString, &g_settings.provider, "",
     "libfabric provider, e.g. sockets or 'tcp;ofi_rxm'; empty: the first one fi_getinfo offers "
     "for FI_EP_RDM with FI_MSG, FI_RMA and FI_ATOMIC"},
    {"iface", Param::Type::kString, &g_settings.iface, "auto",
     "address the endpoint binds to: an interface name (eth0), an IPv4 address, auto (the "
     "first non-loopback IPv4 interface that is up, else 127.0.0.1) or none (the provider "
     "decides; it may resolve the host name, wrong in network namespaces)"},
    with_choices({"data_progress", Param::Type::kString, &g_settings.data_progress, "provider",
                  "who drives the provider: provider (its automatic progress where offered: its "
                  "own threads, woken by the network, also apply other ranks' one-sided "
                  "operations while the application computes) or manual (the thread waiting in "
                  "MPI polls it, and while no MPI call polls, the progress thread does: lower "
                  "latency, slower passive-target progress)"},
                 kDataProgressChoices),
    with_choices({"progress_thread", Param::Type::kString, &g_settings.progress_thread, "auto",
                  "a thread that drives the provider so passive targets progress without "
                  "calling MPI, and stays off it while a waiting MPI call polls: auto (only when "
                  "the provider has no automatic data progress), yes or no"},
                 kAutoYesNo),
    {"progress_thread_us", Param::Type::kInt, &g_settings.progress_thread_us, "50",
     "microseconds the progress thread sleeps between two polls of the provider"},
    with_choices({"progress_block", Param::Type::kString, &g_settings.progress_block, "auto",
                  "how the progress thread waits while no MPI call polls: auto (it sleeps on the "
                  "provider's descriptors, a wait set that its sockets join, and the network "
                  "wakes it; timed looks where the provider has no such wait set) or no (a look "
                  "every STMPI_OFI_PROGRESS_THREAD_US)"},
                 kProgressBlockChoices),
    {"progress_thread_nice", Param::Type::kInt, &g_settings.progress_thread_nice, "-10",
     "nice value of a progress thread that sleeps on the provider's descriptors, so that a "
     "network wake-up preempts the computing rank at once; lowering it needs CAP_SYS_NICE or "
     "RLIMIT_NICE (without them the thread keeps the rank's value and says so at "
     "STMPI_DEVICE_VERBOSE=yes); 0 leaves it",
     -20, 19},
    {"provider_thread_nice", Param::Type::kInt, &g_settings.provider_thread_nice, "0",
     "nice value set on the provider's own progress threads under automatic progress (the "
     "threads that appear while it is opened): a negative value lets other ranks' one-sided "
     "operations preempt a computing rank at once (more passive-target overlap) but costs the "
     "rank's own messages and lock epochs latency, as the woken threads interrupt it; needs "
     "CAP_SYS_NICE or RLIMIT_NICE; 0 leaves them",
     -20, 19},
    with_choices({"host_progress", Param::Type::kString, &g_settings.host_progress, "auto",
                  "whether the provider's progress runs in host threads of this process that "
                  "need CPU time while a rank waits; then waits yield after 20 polls "
                  "(STMPI_PROGRESS_POLLS_BEFORE_YIELD, when set, wins): auto (yes for the "
                  "automatic progress of the software providers sockets, tcp, udp and shm, alone "
                  "or under ofi_rxm/ofi_rxd; no with manual progress, where the waiting rank "
                  "drives the provider itself), yes or no"},
                 kAutoYesNo),
    {"eager_size", Param::Type::kSize, &g_settings.eager_size, "16K",
     "bytes of one eager message including the 80 bytes of headers; longer messages use "
     "rendezvous (the receiver reads the sender's buffer with fi_read)",
     kMinEagerSize, LLONG_MAX},
    {"credits", Param::Type::kInt, &g_settings.credits, "32",
     "eager messages a rank may have in flight to one peer before the peer returns credits "
     "(flow control: a flood of unexpected messages waits at the sender)",
     1, 30000},
    {"recv_buffers", Param::Type::kInt, &g_settings.recv_buffers, "4",
     "receive buffers kept posted (FI_MULTI_RECV buffers where the provider offers it, else "
     "one buffer per message, at least credits)",
     1, INT_MAX},
    {"recv_buffer_size", Param::Type::kSize, &g_settings.recv_buffer_size, "1M",
     "bytes of one multi-receive buffer"},
    {"bounce_buffers", Param::Type::kInt, &g_settings.bounce_buffers, "64",
     "send buffers in flight (each eager_size bytes): a send copies into one, so the caller's "
     "buffer is free at once",
     1, INT_MAX},
    {"mr_cache", Param::Type::kInt, &g_settings.mr_cache, "128",
     "memory registrations kept for reuse (rendezvous buffers, RMA origin buffers); 0 "
     "registers and releases every time",
     0, INT_MAX},
    {"timeout", Param::Type::kInt, &g_settings.timeout_s, "120",
     "seconds a flush or a remote atomic waits for its completion before it fails with an "
     "error naming the peer (some providers never report a failed remote operation); 0: "
     "forever"},
    {"st_counter_limit", Param::Type::kSize, &g_settings.st_counter_limit, "1G",
     "largest value a counter of the stream-triggered pool reaches in the provider before it is "
     "reset in place (sockets counters are 32-bit signed); the pool keeps 64-bit values by "
     "rotating counters nothing is pending on",
     16, 2147483647LL},
};
const util::ParamTable kTable{"ofi", kParams};
const util::ParamRegistration kRegistration{&kTable};

}  // namespace

const Settings& settings() { return g_settings; }
Settings& mutable_settings() { return g_settings; }

}  // namespace stmpi::dev::ofi
