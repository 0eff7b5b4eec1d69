// The UCX module's RMA class (netmod::RmaModule): window memory of members
// on other nodes as kNet regions. Region::remote is the owner's virtual
// address of the region's first byte; Region::key (and control_key) the
// ucp_rkey_h that import_key unpacked from the owner's packed key.
//
// put: ucp_put_nbx per run, remotely complete at flush (ucp_ep_flush_nbx
// for one target, ucp_worker_flush_nbx for all). get: ucp_get_nbx,
// complete on return. 64-bit atomics (the lock protocol): blocking
// ucp_atomic_op_nbx (UCP_ATOMIC_OP_ADD, CSWAP, SWAP), which UCX runs in
// CPU atomic mode (worker.cc): atomic with the target node's CPU atomics.
// Over TCP, UCX applies all of these in the target's progress: the
// module's progress thread (ucx_transport.h) makes that progress while the
// target computes, so passive epochs are truly passive.
// accumulate and compare_swap: UCX atomics where the target's node combines
// the same elements with CPU atomics (8-byte integers in node-shared
// memory, rma::uses_native_atomics) and UCX has the operation (sum, band,
// bor, bxor, replace, no_op; compare-and-swap), a compare-and-swap loop
// per element for the other operations on such elements (max, min, prod,
// logical ones); every other accumulate answers netmod::kNotNative and runs
// through the device's shared locked path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "device/netmod/netmod.h"
#include "device/rma/region.h"
#include "device/ucx/ucx_transport.h"

namespace stmpi::dev::ucx {

class UcxRma final : public netmod::RmaUnsupported {
 public:
  explicit UcxRma(Ucx& ucx) : ucx_(ucx) {}

  int register_memory(void* base, std::size_t bytes, netmod::KeyBlob* blob, void** handle);
  void deregister_memory(void* handle);
  int import_key(int target, std::span<const std::byte> blob, uint64_t* local_key);
  void release_key(int target, uint64_t local_key);

  int put(const rma::Region& region, std::span<const rma::Run> runs, const void* in);
  int get(const rma::Region& region, std::span<const rma::Run> runs, void* out, rma::Completion*);
  int accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                 const rma::AccumulateOp& acc, const void* in, void* out, rma::Completion*);
  int compare_swap(const rma::Region& region, uint64_t offset, const rma::AccumulateOp& acc,
                   const void* compare, const void* swap, void* out, rma::Completion*);
  uint64_t fetch_add64(const rma::Region& region, uint64_t offset, uint64_t add) {
    return atomic64(region.target, region.remote + offset, region.key, UCP_ATOMIC_OP_ADD, add, 0);
  }
  uint64_t compare_swap64(const rma::Region& region, uint64_t offset, uint64_t expected,
                          uint64_t desired) {
    return atomic64(region.target, region.remote + offset, region.key, UCP_ATOMIC_OP_CSWAP, desired,
                    expected);
  }
  // ucp_worker_fence: UCX applies what is issued after it after what was
  // issued before. add64: a non-fetching UCP add (complete at flush).
  int fence() { return ucx_.fence() == 0 ? MPI_SUCCESS : error(); }
  int add64(const rma::Region& region, uint64_t offset, uint64_t value);
  uint64_t load64(const rma::Region& region, uint64_t offset) {
    return atomic64(region.target, region.remote + offset, region.key, UCP_ATOMIC_OP_ADD, 0, 0);
  }
  void store64(const rma::Region& region, uint64_t offset, uint64_t value) {
    (void)atomic64(region.target, region.remote + offset, region.key, UCP_ATOMIC_OP_SWAP, value, 0);
  }
  int flush(int target);
  void serve() { ucx_.serve(); }
  void finalize() {}

 private:
  // A blocking 64-bit atomic the lock protocol cannot do without: a
  // failure aborts the job with UCX's text (the protocol has no error path).
  uint64_t atomic64(int target, uint64_t raddr, uint64_t key, ucp_atomic_op_t op, uint64_t value,
                    uint64_t compare);
  // An accumulate UCX has no atomic for, on elements the target node
  // combines with CPU atomics: a remote compare-and-swap loop per element.
  int cas_accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                     const rma::AccumulateOp& acc, const void* in, void* out);
  int error() const;

  Ucx& ucx_;
};

}  // namespace stmpi::dev::ucx
