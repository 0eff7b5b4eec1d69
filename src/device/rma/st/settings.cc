#include "device/rma/st/settings.h"

#include <climits>

#include "util/param.h"

namespace stmpi::dev::rma::st {
namespace {

Settings g_settings;

using util::Param;

const char* const kTriggerChoices[] = {"auto", "native", "deferred", "software"};
const char* const kThrottleChoices[] = {"application", "static", "adaptive"};

Param with_choices(Param param, std::span<const char* const> choices) {
  param.choices = choices;
  return param;
}

const Param kParams[] = {
    {"max_pending_epochs", Param::Type::kInt, &g_settings.max_pending_epochs, "4096",
     "stream access epochs per window that may be enqueued but not yet executed by their stream; "
     "at the limit MPIX_Win_complete_stream waits for the oldest (bounds the memory of epoch "
     "plans)",
     1, INT_MAX},
    {.name = "print_stats",
     .type = Param::Type::kBool,
     .field = &g_settings.print_stats,
     .default_value = "no",
     .description = "print each window's stream-triggered statistics (epochs, launches by "
                    "kind, triggered operations) at MPI_Win_free",
     .scope = Param::Scope::kLocal},  // read at MPI_Win_free
    with_choices({"trigger", Param::Type::kString, &g_settings.trigger, "auto",
                  "how stream epochs between nodes post their triggered operations: auto "
                  "(native if the provider has FI_TRIGGER, else deferred work, else software), "
                  "native (FI_TRIGGER), deferred (fi_control FI_QUEUE_WORK) or software (the "
                  "library's trigger engine, fired by the stream)"},
                 kTriggerChoices),
    with_choices({"throttle", Param::Type::kString, &g_settings.throttle, "adaptive",
                  "what happens when trigger counters or triggered-op slots run out: application "
                  "(the epoch fails with MPI_ERR_OTHER), static (wait for every outstanding "
                  "epoch) or adaptive (reuse each counter as soon as its operations completed)"},
                 kThrottleChoices),
    {.name = "counters",
     .type = Param::Type::kInt,
     .field = &g_settings.counters,
     .default_value = "256",
     .description = "trigger counters of the process (each stream access epoch between nodes "
                    "holds 2, each exposure epoch 1, until its operations completed)",
     .min = 2,
     .max = 1 << 20},
    {.name = "triggered_ops",
     .type = Param::Type::kInt,
     .field = &g_settings.triggered_ops,
     .default_value = "16384",
     .description = "triggered operations of the process posted and not yet completed (writes, "
                    "accumulates and signals of stream epochs between nodes)",
     .min = 1,
     .max = 1 << 24},
    {.name = "wait_timeout",
     .type = Param::Type::kInt,
     .field = &g_settings.wait_timeout_s,
     .default_value = "0",
     .description = "seconds a stream waits for a signal of an epoch between nodes before it "
                    "reports the epoch, peer and counter that stalled; 0: forever",
     .min = 0,
     .max = 1 << 20},
    {.name = "fault_inject",
     .type = Param::Type::kInt,
     .field = &g_settings.fault_inject,
     .default_value = "0",
     .description = "tests: the n-th operation the software trigger engine fires fails (its "
                    "chain stops, as a failed NIC triggered operation's does); 0: none",
     .min = 0,
     .max = 1 << 30},
};
const util::ParamTable kTable{"st", kParams};
const util::ParamRegistration kRegistration{&kTable};

}  // namespace

const Settings& settings() { return g_settings; }

}  // namespace stmpi::dev::rma::st
