// The stub network module (STMPI_NETMOD=none, and the only one of a build
// without any): carries nothing, answers "unsupported" for every optional
// part (netmod::RmaUnsupported), and its init fails, naming the ranks and
// their nodes, when the peer table has a rank it would have to reach.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "device/netmod/netmod.h"

namespace stmpi::dev::netmod {

class None final {
 public:
  // Why no module can reach such a rank, the end of init's error (set by
  // the selection point: STMPI_NETMOD=none, STMPI_DEVICE_NOLOCAL=yes, ...).
  void set_reason(std::string reason) { reason_ = std::move(reason); }

  int probe(int, std::span<const PeerInfo>, Probe* probe) {
    *probe = Probe{true, 0, "the stub: reaches no rank on another node"};
    return MPI_SUCCESS;
  }
  // MPI_SUCCESS when `table` has no kNet peer, else an error naming the
  // first one (netmod.cc).
  [[nodiscard]] int init(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi);
  void finalize() {}
  Capabilities capabilities() const { return {}; }
  Stats stats() const { return {}; }
  std::string description() const { return "none"; }

  // The Transport concept: never called (no peer is kNet while it runs).
  bool send(int, const WireHeader&, const void*) { return false; }
  template <class F>
  int poll(F&&) {
    return 0;
  }
  std::size_t max_payload() const { return 0; }
  int expose(int, const void*, std::size_t, WireHeader*) { return MPI_ERR_INTERN; }
  void unexpose(const WireHeader&) {}
  PullStatus pull(int, const WireHeader&, void*, std::size_t, RequestDev*) {
    return PullStatus::kUnsupported;
  }

 private:
  std::string reason_ =
      "ranks on other nodes need a network module, which this build does not have";
};
static_assert(Module<None>);

// The stub's RMA: nothing.
class NoneRma final : public RmaUnsupported {
 public:
  explicit NoneRma(None&) {}
};
static_assert(RmaModule<NoneRma>);

}  // namespace stmpi::dev::netmod
