// The cold parts of the interface (netmod.h) and of the stub module (none.h).
#include "device/netmod/netmod.h"

#include <cstdio>
#include <cstdlib>

#include "device/netmod/none.h"
#include "util/error.h"

namespace stmpi::dev::netmod {

int RmaUnsupported::unsupported(const char* what) {
  return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION, "the network module has no %s", what);
}

void RmaUnsupported::no_atomics() {
  std::fprintf(stderr,
               "STMPI device: a 64-bit remote atomic reached a network module without "
               "them (capabilities().atomics64 is false)\n");
  std::abort();
}

int None::init(int my_rank, std::span<const PeerInfo> table, pmi::Client& /*pmi*/) {
  for (std::size_t peer = 0; peer < table.size(); ++peer) {
    if (table[peer].transport != PeerTransport::kNet) continue;
    return util::make_error(MPI_ERR_OTHER, "rank %d runs on node %d and rank %zu on node %d: %s",
                            my_rank, table[my_rank].node, peer, table[peer].node, reason_.c_str());
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::dev::netmod
