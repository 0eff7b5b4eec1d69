// What st_test's copies of the network module and of the RMA transports
// need from the rest of the device. A one-process test has no peers on
// other nodes and no active-message target, so none of these runs: each
// fails loudly if it ever does.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "device/device.h"
#include "device/request_dev.h"

namespace {
[[noreturn]] void unexpected(const char* what) {
  fprintf(stderr, "st_test: %s called in a one-process test\n", what);
  abort();
}
}  // namespace

namespace stmpi::dev {
int world_size() { return 1; }
void register_am_handler(uint8_t, AmHandler) {}
int am_send(int, uint8_t, const void*, std::size_t) { unexpected("am_send"); }
std::size_t am_max_bytes() { unexpected("am_max_bytes"); }
namespace protocol {
void pull_done(RequestDev*, bool) { unexpected("pull_done"); }
}  // namespace protocol
}  // namespace stmpi::dev
