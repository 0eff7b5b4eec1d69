#include "device/rma/st/settings.h"

#include "util/param.h"

namespace stmpi::dev::rma::st {
namespace {

Settings g_settings;

const util::Param kParams[] = {
    {"max_pending_epochs", util::Param::Type::kInt, &g_settings.max_pending_epochs, "4096",
     "stream access epochs per window that may be enqueued but not yet executed by their stream; "
     "at the limit MPIX_Win_complete_stream waits for the oldest (bounds the memory of epoch "
     "plans)"},
    {.name = "print_stats", .type = util::Param::Type::kBool, .field = &g_settings.print_stats,
     .default_value = "no",
     .description = "print each window's stream-triggered statistics (epochs, launches by "
                    "kind) at MPI_Win_free",
     .scope = util::Param::Scope::kLocal},  // read at MPI_Win_free
};
const util::ParamTable kTable{"st", kParams};
const util::ParamRegistration kRegistration{&kTable};

}  // namespace

const Settings& settings() { return g_settings; }

}  // namespace stmpi::dev::rma::st
