// RMA on regions of kind kNet: memory on another node that the network
// module registered (window.cc). NetRma has the RmaTransport and
// AtomicTransport shapes of region.h so that rma.h dispatches on the
// region's kind as for the other transports; each call goes out of line to
// the running module (netmod/net_api.h: declarations only, so nothing that
// includes rma.h compiles a module's types). rma.h sends 64-bit atomics on
// kNet regions without `native_atomics` to the active-message fallback
// (am_rma.h) instead.
#pragma once

#include <cstdint>
#include <span>

#include "device/netmod/net_api.h"
#include "device/rma/region.h"

namespace stmpi::dev::rma {

class NetRma final {
 public:
  static int put(const Region& r, std::span<const Run> runs, const void* in) {
    return netmod::put(r, runs, in);
  }
  static int get(const Region& r, std::span<const Run> runs, void* out, Completion* done) {
    return netmod::get(r, runs, out, done);
  }
  static int accumulate(const Region& r, std::span<const Run> runs, const AccumulateOp& acc,
                        const void* in, void* out, Completion* done) {
    return netmod::accumulate(r, runs, acc, in, out, done);
  }
  static int compare_swap(const Region& r, uint64_t offset, const AccumulateOp& acc,
                          const void* compare, const void* swap, void* out, Completion* done) {
    return netmod::compare_swap(r, offset, acc, compare, swap, out, done);
  }
  static uint64_t fetch_add64(const Region& r, uint64_t offset, uint64_t add) {
    return netmod::fetch_add64(r, offset, add);
  }
  static uint64_t compare_swap64(const Region& r, uint64_t offset, uint64_t expected,
                                 uint64_t desired) {
    return netmod::compare_swap64(r, offset, expected, desired);
  }
  static uint64_t load64(const Region& r, uint64_t offset) { return netmod::load64(r, offset); }
  static void store64(const Region& r, uint64_t offset, uint64_t value) {
    netmod::store64(r, offset, value);
  }
  static int flush(int target) { return netmod::flush(target); }
  static int order_after(int target, bool* fenced) { return netmod::order_after(target, fenced); }
  // Whether the module orders operations (add64_after needs no flush).
  static bool ordered() { return netmod::capabilities().ordering; }
  static int add64_after(const Region& r, uint64_t offset, uint64_t value) {
    return netmod::add64_after(r, offset, value);
  }
};

}  // namespace stmpi::dev::rma
