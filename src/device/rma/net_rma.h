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
#include "device/rma/window.h"

#if defined(STMPI_HAVE_NETMOD_OFI)
#include "device/ofi/ofi_rma.h"
namespace stmpi::dev::rma {
using NetRma = ofi::OfiRma;
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
}  // namespace stmpi::dev::rma
#endif
