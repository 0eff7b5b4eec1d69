// The one selection point of network modules: the only file outside a
// module's folder that includes a module's headers. The device owns one
// Modules object (device.cc, class Peers): it holds every built module,
// picks one at init (STMPI_NETMOD=auto|ofi|ucx|none, the device's parameter
// table, modules.cc) and calls it through a switch on netmod::Kind, one
// predictable branch per call: no virtual call per message or operation.
// netmod.h is the contract; src/device/README.md the checklist.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include "config.h"  // STMPI_HAVE_NETMOD_*: every includer sees the same modules
#include "device/netmod/netmod.h"
#include "device/netmod/none.h"

// ---- Modules built in (one block per module) ------------------------------
// A module's header declares its transport (netmod::Module) and its RMA
// class (netmod::RmaModule, constructed from the transport).
#if defined(STMPI_HAVE_NETMOD_OFI)
#include "device/ofi/ofi.h"      // ofi::Ofi
#include "device/ofi/ofi_rma.h"  // ofi::OfiRma
#endif
#if defined(STMPI_HAVE_NETMOD_UCX)
#include "device/ucx/ucx.h"  // ucx::Ucx, ucx::UcxRma
#endif
// ----------------------------------------------------------------------------

namespace stmpi::pmi {
class Client;
}

namespace stmpi::dev::netmod {

// Calls `fn(module)` with the member for `kind` (the stub when `kind` is not
// built). One switch: the X macro lists the built modules.
#if defined(STMPI_HAVE_NETMOD_OFI)
#define STMPI_NETMOD_OFI_(X) X(kOfi, ofi::Ofi, ofi::OfiRma, ofi_, ofi_rma_)
#else
#define STMPI_NETMOD_OFI_(X)
#endif
#if defined(STMPI_HAVE_NETMOD_UCX)
#define STMPI_NETMOD_UCX_(X) X(kUcx, ucx::Ucx, ucx::UcxRma, ucx_, ucx_rma_)
#else
#define STMPI_NETMOD_UCX_(X)
#endif
#define STMPI_NETMODS(X) STMPI_NETMOD_OFI_(X) STMPI_NETMOD_UCX_(X)

class Modules {
 public:
  Modules() = default;
  Modules(const Modules&) = delete;
  Modules& operator=(const Modules&) = delete;

  // Collective over the job: picks the module (STMPI_NETMOD; `auto` asks
  // every built module's probe and takes the highest score, the same on
  // every rank) and initializes it. Jobs without kNet peers keep the stub.
  // `nolocal_peer`: a rank that only STMPI_DEVICE_NOLOCAL=yes sends through
  // the network (for the stub's error), else -1.
  [[nodiscard]] int init(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi,
                         bool verbose, int nolocal_peer);
  void finalize();
  Kind kind() const { return kind_; }
  // Why `kind()` was chosen (STMPI_DEVICE_VERBOSE, stmpi_info).
  const std::string& why() const { return why_; }
  // Whether `kind` is built into this library.
  static constexpr bool built(Kind kind) {
#define STMPI_NETMOD_BUILT_(K, T, R, t, r) \
  if (kind == Kind::K) return true;
    STMPI_NETMODS(STMPI_NETMOD_BUILT_)
#undef STMPI_NETMOD_BUILT_
    return kind == Kind::kNone;
  }

  template <class F>
  decltype(auto) transport(F&& fn) {
    switch (kind_) {
#define STMPI_NETMOD_CASE_(K, T, R, t, r) \
  case Kind::K: return fn(t);
      STMPI_NETMODS(STMPI_NETMOD_CASE_)
#undef STMPI_NETMOD_CASE_
      default: return fn(none_);
    }
  }
  template <class F>
  decltype(auto) transport(F&& fn) const {
    return const_cast<Modules*>(this)->transport(std::forward<F>(fn));
  }
  template <class F>
  decltype(auto) rma(F&& fn) {
    switch (kind_) {
#define STMPI_NETMOD_CASE_(K, T, R, t, r) \
  case Kind::K: return fn(r);
      STMPI_NETMODS(STMPI_NETMOD_CASE_)
#undef STMPI_NETMOD_CASE_
      default: return fn(none_rma_);
    }
  }

  Capabilities capabilities() const {
    return transport([](auto& m) { return m.capabilities(); });
  }
  Stats stats() const {
    return transport([](auto& m) { return m.stats(); });
  }

  // ---- the Transport concept, for the device's kNet peers
  bool send(int peer, const WireHeader& h, const void* payload) {
    return transport([&](auto& m) { return m.send(peer, h, payload); });
  }
  template <class F>
  int poll(F&& handler) {
    return transport([&](auto& m) { return m.poll(handler); });
  }
  std::size_t max_payload() const {
    return transport([](auto& m) { return m.max_payload(); });
  }
  int expose(int peer, const void* buf, std::size_t bytes, WireHeader* h) {
    return transport([&](auto& m) { return m.expose(peer, buf, bytes, h); });
  }
  void unexpose(const WireHeader& h) {
    transport([&](auto& m) { m.unexpose(h); });
  }
  PullStatus pull(int peer, const WireHeader& rts, void* local, std::size_t bytes,
                  RequestDev* req) {
    return transport([&](auto& m) { return m.pull(peer, rts, local, bytes, req); });
  }

 private:
  int choose(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi, int nolocal_peer);

  Kind kind_ = Kind::kNone;
  std::string why_ = "no network peers";
  None none_;
  NoneRma none_rma_{none_};
#define STMPI_NETMOD_MEMBER_(K, T, R, t, r) \
  static_assert(Module<T>);                 \
  static_assert(RmaModule<R>);              \
  T t;                                      \
  R r{t};
  STMPI_NETMODS(STMPI_NETMOD_MEMBER_)
#undef STMPI_NETMOD_MEMBER_
};
static_assert(Transport<Modules>);

// The device's modules (device.cc owns the object, in its class Peers).
Modules& modules();

}  // namespace stmpi::dev::netmod
