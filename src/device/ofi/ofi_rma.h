// RMA on regions of kind kNet (device/rma/net_rma.h picks this class as
// NetRma): the window memory of a member on another node, registered by the
// network module (Region::remote is the owner's virtual address of the
// region's first byte, Region::key its key).
//
// put/get: fi_write / fi_read per run. Puts complete at flush(); gets wait
// for their data before they return. 64-bit atomics: blocking
// fi_fetch_atomic / fi_compare_atomic on FI_UINT64 (the lock protocol).
//
// accumulate and compare_swap: origins on the target's own node combine
// elements with CPU atomics (8-byte integers in node-shared memory) or
// under the target's accumulate lock (everything else: accumulate.h), and a
// NIC atomic is atomic with the first (the providers apply it with CPU
// atomics) but not with the second. So the NIC does an accumulate only
// where the target's node uses CPU atomics too (Region::native_atomics on a
// kNet memory region: 8-byte integers in node-shared memory, aligned) and
// where fi_query_atomic says the provider does the op on the type. Every
// other accumulate takes the target's accumulate lock with a remote
// compare-and-swap, reads the runs, combines them here and writes them back
// (what CmaRma does inside a node): atomic with the local origins, and
// truly passive, since no step needs the target to call MPI.
#pragma once

#include <rdma/fi_atomic.h>

#include <cstdint>
#include <span>

#include <mpi.h>

#include "device/ofi/ofi.h"
#include "device/rma/accumulate.h"
#include "device/rma/am_rma.h"
#include "device/rma/region.h"
#include "device/rma/window.h"

namespace stmpi::dev::ofi {

// libfabric's name for an accumulate's op and element type; false when it
// has none (the fallback applies).
bool fi_op_of(util::OpKind op, fi_op* out);
bool fi_datatype_of(util::ElementKind kind, fi_datatype* out);

// The window hook (device/rma/window.h, NetRegistration): registers `bytes`
// at `base` (window memory or a control block) for members on other nodes and
// fills what they need; `*handle` is released with release_net_memory.
[[nodiscard]] int register_net_memory(void* base, std::size_t bytes, rma::NetRegistration* out,
                                      Registration** handle);
void release_net_memory(Registration* handle);

class OfiRma final {
 public:
  static int put(const rma::Region& region, std::span<const rma::Run> runs, const void* in) {
    Ofi& ofi = *instance();
    const char* at = static_cast<const char*>(in);
    for (const rma::Run& run : runs) {
      if (ofi.put(region.target, at, run.bytes, address(ofi, region, run.offset), region.key) != 0)
        return error(ofi);
      at += run.bytes;
    }
    return MPI_SUCCESS;
  }
  static int get(const rma::Region& region, std::span<const rma::Run> runs, void* out,
                 rma::Completion*) {
    Ofi& ofi = *instance();
    char* at = static_cast<char*>(out);
    for (const rma::Run& run : runs) {
      if (ofi.get(region.target, at, run.bytes, address(ofi, region, run.offset), region.key) != 0)
        return error(ofi);
      at += run.bytes;
    }
    return ofi.flush() == 0 ? MPI_SUCCESS : error(ofi);
  }
  static int accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                        const rma::AccumulateOp& acc, const void* in, void* out,
                        rma::Completion* /*done: complete on return*/) {
    Ofi& ofi = *instance();
    fi_op op;
    fi_datatype type;
    const bool fetch = out != nullptr;
    if (!nic_combines(region, runs, acc) || !native(ofi, acc, fetch ? 1 : 0, &op, &type))
      return locked_accumulate(region, runs, acc, in, out);
    const char* src = static_cast<const char*>(in);
    char* dst = static_cast<char*>(out);
    for (const rma::Run& run : runs) {
      const std::size_t count = run.bytes / acc.element_size;
      const uint64_t raddr = address(ofi, region, run.offset);
      const int rc =
          fetch ? ofi.fetch_atomic(region.target, op, type, src, dst, count, raddr, region.key)
                : ofi.atomic(region.target, op, type, src, count, raddr, region.key);
      if (rc != 0) return error(ofi);
      if (src) src += run.bytes;
      if (dst) dst += run.bytes;
    }
    if (fetch && ofi.flush() != 0) return error(ofi);
    return MPI_SUCCESS;
  }
  static int compare_swap(const rma::Region& region, uint64_t offset, const rma::AccumulateOp& acc,
                          const void* compare, const void* swap, void* out,
                          rma::Completion* /*done: complete on return*/) {
    Ofi& ofi = *instance();
    fi_datatype type;
    const rma::Run one{offset, acc.element_size};
    if (!nic_combines(region, std::span<const rma::Run>(&one, 1), acc) ||
        !fi_datatype_of(acc.element, &type) || !ofi.atomic_valid(2, FI_CSWAP, type))
      return locked_compare_swap(region, offset, acc, compare, swap, out);
    if (ofi.compare_atomic(region.target, type, compare, swap, out, address(ofi, region, offset),
                           region.key) != 0 ||
        ofi.flush() != 0)
      return error(ofi);
    return MPI_SUCCESS;
  }
  static uint64_t fetch_add64(const rma::Region& region, uint64_t offset, uint64_t add) {
    Ofi& ofi = *instance();
    return ofi.fetch_add64(region.target, address(ofi, region, offset), region.key, add);
  }
  static uint64_t compare_swap64(const rma::Region& region, uint64_t offset, uint64_t expected,
                                 uint64_t desired) {
    Ofi& ofi = *instance();
    return ofi.compare_swap64(region.target, address(ofi, region, offset), region.key, expected,
                              desired);
  }
  static uint64_t load64(const rma::Region& region, uint64_t offset) {
    Ofi& ofi = *instance();
    return ofi.load64(region.target, address(ofi, region, offset), region.key);
  }
  static void store64(const rma::Region& region, uint64_t offset, uint64_t value) {
    Ofi& ofi = *instance();
    ofi.store64(region.target, address(ofi, region, offset), region.key, value);
  }
  // Completes every one-sided operation issued through the module (all
  // targets: one counter per endpoint).
  static int flush(int /*target*/) {
    Ofi* ofi = instance();
    if (ofi == nullptr || !ofi->initialized()) return MPI_SUCCESS;
    return ofi->flush() == 0 ? MPI_SUCCESS : error(*ofi);
  }
  // Whether 64-bit fetch-add, compare-and-swap, read and write on FI_UINT64
  // are native (NetRegistration::native_atomics).
  static bool native_atomics64() {
    Ofi& ofi = *instance();
    return ofi.atomic_valid(1, FI_SUM, FI_UINT64) && ofi.atomic_valid(2, FI_CSWAP, FI_UINT64) &&
           ofi.atomic_valid(1, FI_ATOMIC_READ, FI_UINT64) &&
           ofi.atomic_valid(0, FI_ATOMIC_WRITE, FI_UINT64);
  }

 private:
  // The address libfabric wants: virtual (FI_MR_VIRT_ADDR) or the offset in
  // the registration, which starts at the region's first byte.
  static uint64_t address(const Ofi& ofi, const rma::Region& region, uint64_t offset) {
    return ofi.virt_addr() ? region.remote + offset : offset;
  }
  // Whether the target's node combines these elements with CPU atomics, so
  // that a NIC atomic is atomic with its local origins (see the top).
  static bool nic_combines(const rma::Region& region, std::span<const rma::Run> runs,
                           const rma::AccumulateOp& acc) {
    if (!rma::uses_native_atomics(region, acc)) return false;
    for (const rma::Run& run : runs)
      if ((region.remote + run.offset) % 8 != 0) return false;
    return true;
  }
  // Accumulate / compare-and-swap under the target's accumulate lock, by
  // remote reads and writes (ofi_rma_map.cc).
  static int locked_accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                               const rma::AccumulateOp& acc, const void* in, void* out);
  static int locked_compare_swap(const rma::Region& region, uint64_t offset,
                                 const rma::AccumulateOp& acc, const void* compare,
                                 const void* swap, void* out);
  static bool native(Ofi& ofi, const rma::AccumulateOp& acc, int kind, fi_op* op,
                     fi_datatype* type) {
    return acc.element_size != 0 && fi_op_of(acc.op, op) && fi_datatype_of(acc.element, type) &&
           ofi.atomic_valid(kind, *op, *type);
  }
  static int error(const Ofi& ofi);
};

static_assert(rma::AtomicTransport<OfiRma>);

}  // namespace stmpi::dev::ofi
