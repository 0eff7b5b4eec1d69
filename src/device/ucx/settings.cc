#include "device/ucx/settings.h"

#include <climits>

#include "util/param.h"

namespace stmpi::dev::ucx {
namespace {

Settings g_settings;

using util::Param;

const char* const kYesNo[] = {"yes", "no"};
const char* const kShmChoices[] = {"exclude", "allow"};

const Param kParams[] = {
    {"eager_size", Param::Type::kSize, &g_settings.eager_size, "66K",
     "bytes of one eager active message including the 80 bytes of headers (the default carries 64 "
     "KiB of payload eagerly); longer messages use rendezvous (the receiver reads the sender's "
     "registered buffer with ucp_get_nbx)",
     kMinEagerSize, 1LL << 30},
    {"credits", Param::Type::kInt, &g_settings.credits, "32",
     "eager messages a rank may have in flight to one peer before the peer returns credits "
     "(flow control: a flood of unexpected messages waits at the sender, not in UCX)",
     2, 30000},
    {"progress_thread", Param::Type::kString, &g_settings.progress_thread, "yes",
     "a thread that sleeps on the UCX worker's event descriptor and progresses the "
     "worker when the network brings work while no MPI call polls it, so that "
     "other ranks' one-sided operations and atomics (which UCX runs in the target's "
     "progress over TCP) complete while this rank computes: yes or no",
     LLONG_MIN, LLONG_MAX, Param::Scope::kTable, kYesNo},
    {"progress_thread_us", Param::Type::kInt, &g_settings.progress_thread_us, "200",
     "microseconds without an MPI call polling the worker after which the progress thread takes "
     "over (it stays off a worker its rank drives)",
     1, 1000000},
    {"progress_thread_nice", Param::Type::kInt, &g_settings.progress_thread_nice, "0",
     "nice value of the progress thread (a negative value lets a network wake-up preempt the "
     "computing rank at once; needs CAP_SYS_NICE or RLIMIT_NICE); 0 leaves it",
     -20, 19},
    {"shm_transports", Param::Type::kString, &g_settings.shm_transports, "exclude",
     "UCX's shared-memory transports (posix, sysv, cma) between network peers when "
     "UCX_TLS is not set: exclude (ranks of one node talk through the device's own "
     "shared memory, and two nodes that happen to share /dev/shm, such as network "
     "namespaces, must not be joined by it) or allow",
     LLONG_MIN, LLONG_MAX, Param::Scope::kTable, kShmChoices},
    {"timeout", Param::Type::kInt, &g_settings.timeout_s, "120",
     "seconds a flush, a remote atomic or the closing of endpoints at finalize waits before it "
     "fails with an error naming the peer; 0: forever",
     0, INT_MAX},
};
const util::ParamTable kTable{"ucx", kParams};
const util::ParamRegistration kRegistration{&kTable};

}  // namespace

const Settings& settings() { return g_settings; }
Settings& mutable_settings() { return g_settings; }

}  // namespace stmpi::dev::ucx
