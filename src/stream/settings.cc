#include "stream/settings.h"

#include "util/param.h"

namespace stmpi::stream {
namespace {

Settings g_settings;

const util::Param kParams[] = {
    {"backend", util::Param::Type::kString, &g_settings.backend, "auto",
     "stream backend for GPU stream handles: auto (a GPU backend whose runtime finds a device, "
     "else host), host, hip or cuda; MPIX_Host_stream works with every choice"},
    {"spin_us", util::Param::Type::kInt, &g_settings.spin_us, "20",
     "microseconds an idle host-stream executor or a waiting operation busy-polls before it "
     "sleeps (idle: until work arrives) or backs off (wait: yield, then short sleeps)"},
    {"poll_sleep_us", util::Param::Type::kInt, &g_settings.poll_sleep_us, "50",
     "longest sleep, in microseconds, between two polls of a host-stream wait operation"},
};
const util::ParamTable kTable{"stream", kParams};
const util::ParamRegistration kRegistration{&kTable};

}  // namespace

const Settings& settings() { return g_settings; }

}  // namespace stmpi::stream
