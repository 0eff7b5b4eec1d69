// RMA on regions of kind kNet: memory on another node that the network
// module registered (window.h, NetRegistration). This header is the plug-in
// point for that module's RMA class: put, get, accumulate, compare_swap as
// RmaTransport (region.h) and, where the NIC does them, 64-bit atomics
// (fetch_add64, compare_swap64, load64, store64); rma.h sends 64-bit
// atomics on kNet regions without `native_atomics` to the active-message
// fallback (am_rma.h) instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <mpi.h>

#include "config.h"  // STMPI_HAVE_NETMOD_OFI: every includer must see the same NetRma
#include "device/rma/region.h"
#include "device/rma/st/triggered_ops.h"
#include "device/rma/window.h"
#include "util/error.h"

namespace stmpi::dev::rma {
// Stream-triggered RMA between nodes (device/rma/st): the network module's
// TriggeredOps for `mode` (st::TriggerMode::kNative: FI_TRIGGER on the data
// calls; kDeferred: the deferred work queue), owned by the module, or
// MPI_ERR_UNSUPPORTED_OPERATION (with a message naming what the provider
// lacks) when the provider cannot do `mode`; then st falls back to its
// software trigger engine under STMPI_ST_TRIGGER=auto. kSoftware is never
// asked of the module.
[[nodiscard]] int net_triggered_ops(st::TriggerMode mode, st::TriggeredOps** out);
}  // namespace stmpi::dev::rma

#if defined(STMPI_HAVE_NETMOD_OFI)
#include <mutex>

#include "device/ofi/ofi_rma.h"
#include "device/ofi/ofi_triggered.h"
namespace stmpi::dev::rma {
// The software trigger engine (st/software_triggers.h) issues kNet
// operations from streams' threads (host functions) while the MPI thread
// issues its own; the module's one-sided state (operation contexts, the
// issued count that flush waits for, blocking atomics' completions) is not
// shared safely between threads, so every kNet call goes through this one
// mutex (uncontended: tens of nanoseconds against microseconds per
// network operation).
inline std::mutex& net_mutex() {
  static std::mutex mutex;
  return mutex;
}
template <class Net>
class SerializedNetRma final {
 public:
  using Guard = std::lock_guard<std::mutex>;
  static int put(const Region& r, std::span<const Run> runs, const void* in) {
    Guard g(net_mutex());
    return Net::put(r, runs, in);
  }
  static int get(const Region& r, std::span<const Run> runs, void* out, Completion* done) {
    Guard g(net_mutex());
    return Net::get(r, runs, out, done);
  }
  static int accumulate(const Region& r, std::span<const Run> runs, const AccumulateOp& acc,
                        const void* in, void* out, Completion* done) {
    Guard g(net_mutex());
    return Net::accumulate(r, runs, acc, in, out, done);
  }
  static int compare_swap(const Region& r, uint64_t offset, const AccumulateOp& acc,
                          const void* compare, const void* swap, void* out, Completion* done) {
    Guard g(net_mutex());
    return Net::compare_swap(r, offset, acc, compare, swap, out, done);
  }
  static uint64_t fetch_add64(const Region& r, uint64_t offset, uint64_t add) {
    Guard g(net_mutex());
    return Net::fetch_add64(r, offset, add);
  }
  static uint64_t compare_swap64(const Region& r, uint64_t offset, uint64_t expected,
                                 uint64_t desired) {
    Guard g(net_mutex());
    return Net::compare_swap64(r, offset, expected, desired);
  }
  static uint64_t load64(const Region& r, uint64_t offset) {
    Guard g(net_mutex());
    return Net::load64(r, offset);
  }
  static void store64(const Region& r, uint64_t offset, uint64_t value) {
    Guard g(net_mutex());
    Net::store64(r, offset, value);
  }
  static int flush(int target) {
    Guard g(net_mutex());
    return Net::flush(target);
  }
  static bool native_atomics64() { return Net::native_atomics64(); }
};
using NetRma = SerializedNetRma<ofi::OfiRma>;
// Registers `bytes` at `base` with the network module for members on other
// nodes (window.cc); `*handle` goes back to net_release().
[[nodiscard]] inline int net_register(void* base, std::size_t bytes, NetRegistration* out,
                                      void** handle) {
  ofi::Registration* reg = nullptr;
  const int err = ofi::register_net_memory(base, bytes, out, &reg);
  *handle = reg;
  return err;
}
inline void net_release(void* handle) {
  ofi::release_net_memory(static_cast<ofi::Registration*>(handle));
}
// The module's pool of NIC triggered operations (device/ofi/ofi_triggered.h):
// kNative where the provider reports FI_TRIGGER, kDeferred where its domain
// takes FI_QUEUE_WORK; otherwise MPI_ERR_UNSUPPORTED_OPERATION.
[[nodiscard]] inline int net_triggered_ops(st::TriggerMode mode, st::TriggeredOps** out) {
  *out = nullptr;
  if (mode == st::TriggerMode::kSoftware)
    return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                            "the network module has no software trigger path");
  const int err = ofi::triggered_ops(mode, out);
  if (err != MPI_SUCCESS) return err;
  // Accumulates the NIC cannot do atomically run through NetRma (locked,
  // serialized with the MPI thread) when their trigger is reached.
  static_cast<ofi::TriggeredNic*>(*out)->set_host_accumulate(
      [](const Region& region, std::span<const Run> runs, const AccumulateOp& acc, const void* in) {
        Completion done;
        return NetRma::accumulate(region, runs, acc, in, nullptr, &done);
      });
  // Reads (MPI_Get in a stream epoch) too: blocking, complete on return.
  static_cast<ofi::TriggeredNic*>(*out)->set_host_get(
      [](const Region& region, std::span<const Run> runs, void* out_bytes) {
        Completion done;
        return NetRma::get(region, runs, out_bytes, &done);
      });
  return MPI_SUCCESS;
}
}  // namespace stmpi::dev::rma
#else
namespace stmpi::dev::rma {
// No network module in this build: no region is kNet (a window with a
// member on another node cannot be created), so these never run.
class NoNetRma final {
 public:
  static int put(const Region&, std::span<const Run>, const void*) { return MPI_ERR_INTERN; }
  static int get(const Region&, std::span<const Run>, void*, Completion*) { return MPI_ERR_INTERN; }
  static int accumulate(const Region&, std::span<const Run>, const AccumulateOp&, const void*,
                        void*, Completion*) {
    return MPI_ERR_INTERN;
  }
  static int compare_swap(const Region&, uint64_t, const AccumulateOp&, const void*, const void*,
                          void*, Completion*) {
    return MPI_ERR_INTERN;
  }
  static uint64_t fetch_add64(const Region&, uint64_t, uint64_t) { return 0; }
  static uint64_t compare_swap64(const Region&, uint64_t, uint64_t, uint64_t) { return 0; }
  static uint64_t load64(const Region&, uint64_t) { return 0; }
  static void store64(const Region&, uint64_t, uint64_t) {}
  static int flush(int) { return MPI_SUCCESS; }
};
using NetRma = NoNetRma;
[[nodiscard]] inline int net_register(void*, std::size_t, NetRegistration*, void** handle) {
  *handle = nullptr;
  return MPI_ERR_INTERN;
}
inline void net_release(void*) {}
[[nodiscard]] inline int net_triggered_ops(st::TriggerMode, st::TriggeredOps** out) {
  *out = nullptr;
  return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                          "no network module in this build: no triggered operations");
}
}  // namespace stmpi::dev::rma
#endif
