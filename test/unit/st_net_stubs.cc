// What st_test's copies of the RMA transports need from the rest of the
// device and from the network modules (device/netmod/net_api.h: defining
// them here keeps the real dispatch, and with it device.cc, out of the
// link). A one-process test has no peers on other nodes and no
// active-message target, so none of these runs except the answers "no
// module": each other one fails loudly if it ever does.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "device/device.h"
#include "device/netmod/net_api.h"
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

namespace stmpi::dev::netmod {
Kind running() { return Kind::kNone; }
Capabilities capabilities() { return {}; }
Stats stats(Kind) { return {}; }
int register_memory(void*, std::size_t, KeyBlob*, void**) { unexpected("register_memory"); }
void deregister_memory(void*) { unexpected("deregister_memory"); }
int import_key(int, std::span<const std::byte>, uint64_t*) { unexpected("import_key"); }
void release_key(int, uint64_t) { unexpected("release_key"); }
int put(const rma::Region&, std::span<const rma::Run>, const void*) { unexpected("put"); }
int get(const rma::Region&, std::span<const rma::Run>, void*, rma::Completion*) {
  unexpected("get");
}
int accumulate(const rma::Region&, std::span<const rma::Run>, const rma::AccumulateOp&, const void*,
               void*, rma::Completion*) {
  unexpected("accumulate");
}
int compare_swap(const rma::Region&, uint64_t, const rma::AccumulateOp&, const void*, const void*,
                 void*, rma::Completion*) {
  unexpected("compare_swap");
}
uint64_t fetch_add64(const rma::Region&, uint64_t, uint64_t) { unexpected("fetch_add64"); }
uint64_t compare_swap64(const rma::Region&, uint64_t, uint64_t, uint64_t) {
  unexpected("compare_swap64");
}
uint64_t load64(const rma::Region&, uint64_t) { unexpected("load64"); }
void store64(const rma::Region&, uint64_t, uint64_t) { unexpected("store64"); }
int add64_after(const rma::Region&, uint64_t, uint64_t) { unexpected("add64_after"); }
int order_after(int, bool* fenced) {  // no module runs: nothing to order
  *fenced = false;
  return MPI_SUCCESS;
}
int flush(int) { return MPI_SUCCESS; }  // no module runs: nothing to complete
int triggered_ops(rma::st::TriggerMode, rma::st::TriggeredOps** out) {
  *out = nullptr;
  return MPI_ERR_UNSUPPORTED_OPERATION;  // the tests build their own pools
}
}  // namespace stmpi::dev::netmod
