// RMA and atomics of the libfabric module (netmod::RmaModule of
// device/netmod/netmod.h): one-sided operations on the transport's second
// endpoint, counted by its counter (flush waits for it), window
// registration and keys, and the owner of the triggered-operation pools
// (ofi_triggered.h). One object per transport; the device calls it under
// its one mutex (netmod/net_api.cc).
//
// Two levels:
//   raw operations    (peer, local buffer, remote address, key), as
//                     libfabric takes them: fi_write / fi_read / fi_atomic /
//                     fi_fetch_atomic / fi_compare_atomic, and blocking
//                     64-bit atomics for the lock protocol (ofi_rma.cc);
//   region operations (Region, runs) of netmod::RmaModule: the raw ones
//                     per run, addresses as the provider wants them
//                     (virtual, or offsets in the registration), accumulates
//                     natively only where the target's node combines the same
//                     elements with CPU atomics (ofi_rma_map.cc).
//
// Why accumulates are native only there: origins on the target's own node
// combine elements with CPU atomics (8-byte integers in node-shared memory)
// or under the target's accumulate lock (everything else: accumulate.h),
// and a NIC atomic is atomic with the first (the providers apply it with
// CPU atomics) but not with the second. Everything else answers
// netmod::kNotNative and the device runs it under the target's accumulate
// lock (net_api.cc): atomic with the local origins and truly passive.
#pragma once

#include <rdma/fi_atomic.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "device/netmod/netmod.h"
#include "device/ofi/mr_cache.h"
#include "device/ofi/ofi.h"
#include "device/rma/region.h"

namespace stmpi::dev::ofi {

class TriggeredNic;

// libfabric's name for an accumulate's op and element type; false when it
// has none (the fallback applies).
bool fi_op_of(util::OpKind op, fi_op* out);
bool fi_datatype_of(util::ElementKind kind, fi_datatype* out);

class OfiRma final : public netmod::RmaUnsupported {
 public:
  explicit OfiRma(Ofi& ofi);
  ~OfiRma();
  OfiRma(const OfiRma&) = delete;
  OfiRma& operator=(const OfiRma&) = delete;

  // ---- raw operations. Every int is an MPI error code carrying the
  // provider's text. Non-blocking ones complete at flush(); results land
  // at flush() too.
  [[nodiscard]] int register_window(void* base, std::size_t bytes, Registration* out);
  void deregister_window(Registration* r);
  [[nodiscard]] int put(int peer, const void* buf, std::size_t bytes, uint64_t raddr,
                        uint64_t key) {
    return transfer(false, peer, const_cast<void*>(buf), bytes, raddr, key);
  }
  [[nodiscard]] int get(int peer, void* buf, std::size_t bytes, uint64_t raddr, uint64_t key) {
    return transfer(true, peer, buf, bytes, raddr, key);
  }
  [[nodiscard]] int atomic(int peer, fi_op op, fi_datatype type, const void* buf, std::size_t count,
                           uint64_t raddr, uint64_t key);
  [[nodiscard]] int fetch_atomic(int peer, fi_op op, fi_datatype type, const void* buf,
                                 void* result, std::size_t count, uint64_t raddr, uint64_t key);
  [[nodiscard]] int compare_atomic(int peer, fi_datatype type, const void* compare,
                                   const void* swap, void* result, uint64_t raddr, uint64_t key);
  // Blocking 64-bit atomics for the lock protocol: the old value. A failure
  // aborts the job with the provider's text (the protocol has no error path).
  uint64_t fetch_add64(int peer, uint64_t raddr, uint64_t key, uint64_t value);
  uint64_t compare_swap64(int peer, uint64_t raddr, uint64_t key, uint64_t expected,
                          uint64_t desired);
  uint64_t load64(int peer, uint64_t raddr, uint64_t key);
  void store64(int peer, uint64_t raddr, uint64_t key, uint64_t value);
  // Waits until every one-sided operation issued so far is complete at its
  // target (one counter per endpoint: all targets).
  [[nodiscard]] int flush();

  // ---- netmod::RmaModule (ofi_rma_map.cc)
  [[nodiscard]] int register_memory(void* base, std::size_t bytes, netmod::KeyBlob* blob,
                                    void** handle);
  void deregister_memory(void* handle);
  [[nodiscard]] int import_key(int target, std::span<const std::byte> blob, uint64_t* local_key);
  void release_key(int, uint64_t) {}
  [[nodiscard]] int put(const rma::Region& region, std::span<const rma::Run> runs, const void* in);
  [[nodiscard]] int get(const rma::Region& region, std::span<const rma::Run> runs, void* out,
                        rma::Completion* done);
  [[nodiscard]] int accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                               const rma::AccumulateOp& acc, const void* in, void* out,
                               rma::Completion* done);
  [[nodiscard]] int compare_swap(const rma::Region& region, uint64_t offset,
                                 const rma::AccumulateOp& acc, const void* compare,
                                 const void* swap, void* out, rma::Completion* done);
  uint64_t fetch_add64(const rma::Region& region, uint64_t offset, uint64_t add) {
    return fetch_add64(region.target, address(region, offset), region.key, add);
  }
  uint64_t compare_swap64(const rma::Region& region, uint64_t offset, uint64_t expected,
                          uint64_t desired) {
    return compare_swap64(region.target, address(region, offset), region.key, expected, desired);
  }
  uint64_t load64(const rma::Region& region, uint64_t offset) {
    return load64(region.target, address(region, offset), region.key);
  }
  void store64(const rma::Region& region, uint64_t offset, uint64_t value) {
    store64(region.target, address(region, offset), region.key, value);
  }
  [[nodiscard]] int flush(int /*target: one counter for all*/) {
    return ofi_.initialized() ? flush() : MPI_SUCCESS;
  }
  // The pool of NIC triggered operations for `mode`, opened on first use
  // and closed by finalize(); MPI_ERR_UNSUPPORTED_OPERATION (with the
  // reason) where the provider lacks the path.
  [[nodiscard]] int triggered_ops(rma::st::TriggerMode mode, const netmod::HostRma& host,
                                  rma::st::TriggeredOps** out);
  // Closes the pools (before the transport closes the domain) and forgets
  // operations in flight.
  void finalize();

 private:
  struct Blocking;
  OpContext* rma_context();
  int transfer(bool read, int peer, void* buf, std::size_t bytes, uint64_t raddr, uint64_t key);
  // Registrations of local buffers an operation uses until flush (FI_MR_LOCAL).
  int hold(const void* buf, std::size_t bytes, Registration** out);
  int wait_blocking(OpContext* op, const char* what);
  uint64_t blocking_atomic(int peer, fi_op op, const uint64_t* operand, const uint64_t* compare,
                           uint64_t raddr, uint64_t key);
  // An MPI error (MPI_ERR_OTHER) with "network RMA: <what>".
  static int error(const std::string& what);
  // The address libfabric wants: virtual (FI_MR_VIRT_ADDR) or the offset in
  // the registration, which starts at the region's first byte.
  uint64_t address(const rma::Region& region, uint64_t offset) const {
    return ofi_.virt_addr() ? region.remote + offset : offset;
  }
  bool native(const rma::AccumulateOp& acc, int kind, fi_op* op, fi_datatype* type) {
    return acc.element_size != 0 && fi_op_of(acc.op, op) && fi_datatype_of(acc.element, type) &&
           ofi_.atomic_valid(kind, *op, *type);
  }

  Ofi& ofi_;
  uint64_t issued_ = 0;  // operations counted by the endpoint's counter
  uint64_t errors_seen_ = 0;
  std::deque<OpContext> contexts_;   // until flush
  std::vector<Registration*> held_;  // until flush
  // Triggered-operation pools by mode (kNative, kDeferred) and the answer
  // of a mode the provider refused.
  std::array<std::unique_ptr<TriggeredNic>, 2> pools_;
  std::array<int, 2> refused_{};
};
static_assert(netmod::RmaModule<OfiRma>);

}  // namespace stmpi::dev::ofi
