// UcxRma (ucx_rma.h): registrations and keys, data movement, accumulates
// through UCX atomics where they are atomic with the target node's.
#include "device/ucx/ucx_rma.h"

#include <cstring>
#include <string>

#include <mpi.h>

#include "device/rma/accumulate.h"
#include "pmi/client.h"
#include "util/error.h"
#include "util/reduce.h"

namespace stmpi::dev::ucx {
namespace {

// UCX's atomic for an accumulate's operation (non-fetching ones exist for
// add, and, or, xor; replace and no_op only fetch).
bool ucx_op_of(util::OpKind op, bool fetch, ucp_atomic_op_t* out) {
  switch (op) {
    case util::OpKind::kSum: *out = UCP_ATOMIC_OP_ADD; return true;
    case util::OpKind::kBand: *out = UCP_ATOMIC_OP_AND; return true;
    case util::OpKind::kBor: *out = UCP_ATOMIC_OP_OR; return true;
    case util::OpKind::kBxor: *out = UCP_ATOMIC_OP_XOR; return true;
    case util::OpKind::kReplace: *out = UCP_ATOMIC_OP_SWAP; return true;
    case util::OpKind::kNoOp: *out = UCP_ATOMIC_OP_ADD; return fetch;
    default: return false;
  }
}

// Whether the target's node combines these elements with CPU atomics, so
// that UCX's (CPU-mode) atomics are atomic with its local origins.
bool atomics_combine(const rma::Region& region, std::span<const rma::Run> runs,
                     const rma::AccumulateOp& acc) {
  if (!rma::uses_native_atomics(region, acc)) return false;
  for (const rma::Run& run : runs)
    if ((region.remote + run.offset) % 8 != 0 || run.bytes % 8 != 0) return false;
  return true;
}

ucp_rkey_h rkey_of(uint64_t key) { return reinterpret_cast<ucp_rkey_h>(key); }

}  // namespace

int UcxRma::error() const {
  return util::make_error(MPI_ERR_OTHER, "network RMA (ucx): %s", ucx_.error().c_str());
}

int UcxRma::register_memory(void* base, std::size_t bytes, netmod::KeyBlob* blob, void** handle) {
  *handle = nullptr;
  ucp_mem_h memh = nullptr;
  std::string packed;
  if (ucx_.register_memory(base, bytes, &memh, &packed) != 0)
    return util::make_error(MPI_ERR_OTHER, "network RMA (ucx): registering %zu bytes: %s", bytes,
                            ucx_.error().c_str());
  const auto* first = reinterpret_cast<const std::byte*>(packed.data());
  blob->assign(first, first + packed.size());
  *handle = memh;
  return MPI_SUCCESS;
}

void UcxRma::deregister_memory(void* handle) {
  if (handle != nullptr) ucx_.deregister_memory(static_cast<ucp_mem_h>(handle));
}

int UcxRma::import_key(int target, std::span<const std::byte> blob, uint64_t* local_key) {
  *local_key = 0;
  ucp_rkey_h rkey = nullptr;
  if (blob.empty())
    return util::make_error(MPI_ERR_OTHER, "network RMA (ucx): rank %d sent no key", target);
  if (ucx_.import_key(target, blob.data(), &rkey) != 0) return error();
  *local_key = reinterpret_cast<uint64_t>(rkey);
  return MPI_SUCCESS;
}

void UcxRma::release_key(int, uint64_t local_key) {
  if (local_key != 0) ucx_.release_key(rkey_of(local_key));
}

int UcxRma::put(const rma::Region& region, std::span<const rma::Run> runs, const void* in) {
  char* bytes = const_cast<char*>(static_cast<const char*>(in));  // read only
  if (ucx_.transfer(false, region.target, bytes, runs, region.remote, rkey_of(region.key)) != 0)
    return error();
  return MPI_SUCCESS;
}

int UcxRma::get(const rma::Region& region, std::span<const rma::Run> runs, void* out,
                rma::Completion*) {
  if (ucx_.transfer(true, region.target, static_cast<char*>(out), runs, region.remote,
                    rkey_of(region.key)) != 0)
    return error();
  return MPI_SUCCESS;
}

int UcxRma::flush(int target) {
  if (!ucx_.initialized()) return MPI_SUCCESS;
  return ucx_.flush(target) == 0 ? MPI_SUCCESS : error();
}

uint64_t UcxRma::atomic64(int target, uint64_t raddr, uint64_t key, ucp_atomic_op_t op,
                          uint64_t value, uint64_t compare) {
  if (ucx_.atomic(target, op, 8, &value, compare, true, raddr, rkey_of(key)) != 0)
    pmi::client().abort(1, "STMPI network module ucx: remote atomic on rank " +
                               std::to_string(target) + ": " + ucx_.error());
  return value;
}

int UcxRma::add64(const rma::Region& region, uint64_t offset, uint64_t value) {
  if (ucx_.atomic(region.target, UCP_ATOMIC_OP_ADD, 8, &value, 0, false, region.remote + offset,
                  rkey_of(region.key)) != 0)
    return error();
  return MPI_SUCCESS;
}

int UcxRma::accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                       const rma::AccumulateOp& acc, const void* in, void* out, rma::Completion*) {
  const bool fetch = out != nullptr;
  ucp_atomic_op_t op;
  if (!atomics_combine(region, runs, acc)) return netmod::kNotNative;
  // The target's node combines these elements with CPU atomics: an
  // operation UCX has no atomic for must still be one (a compare-and-swap
  // loop), never the shared locked path, which local origins do not take.
  if (!ucx_op_of(acc.op, fetch, &op)) return cas_accumulate(region, runs, acc, in, out);
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  for (const rma::Run& run : runs) {
    for (uint64_t at = 0; at < run.bytes; at += 8) {
      uint64_t value = 0;
      if (src != nullptr && acc.op != util::OpKind::kNoOp) std::memcpy(&value, src + at, 8);
      if (ucx_.atomic(region.target, op, 8, &value, 0, fetch, region.remote + run.offset + at,
                      rkey_of(region.key)) != 0)
        return error();
      if (fetch) std::memcpy(dst + at, &value, 8);
    }
    if (src != nullptr) src += run.bytes;
    if (dst != nullptr) dst += run.bytes;
  }
  return MPI_SUCCESS;
}

int UcxRma::cas_accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                           const rma::AccumulateOp& acc, const void* in, void* out) {
  if (acc.op == util::OpKind::kNoOp && out == nullptr) return MPI_SUCCESS;  // nothing to do
  const util::OpKernel combine = util::op_kernel(acc.op, acc.element, false);
  if (combine == nullptr || in == nullptr) return netmod::kNotNative;
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  for (const rma::Run& run : runs) {
    for (uint64_t at = 0; at < run.bytes; at += 8) {
      const uint64_t raddr = region.remote + run.offset + at;
      uint64_t seen = 0;
      if (ucx_.atomic(region.target, UCP_ATOMIC_OP_ADD, 8, &seen, 0, true, raddr,
                      rkey_of(region.key)) != 0)
        return error();
      for (;;) {
        uint64_t next = seen;
        combine(src + at, &next, 1);
        uint64_t swapped = next;
        if (ucx_.atomic(region.target, UCP_ATOMIC_OP_CSWAP, 8, &swapped, seen, true, raddr,
                        rkey_of(region.key)) != 0)
          return error();
        if (swapped == seen) break;
        seen = swapped;
      }
      if (dst != nullptr) std::memcpy(dst + at, &seen, 8);
    }
    src += run.bytes;
    if (dst != nullptr) dst += run.bytes;
  }
  return MPI_SUCCESS;
}

int UcxRma::compare_swap(const rma::Region& region, uint64_t offset, const rma::AccumulateOp& acc,
                         const void* compare, const void* swap, void* out, rma::Completion*) {
  const rma::Run one{offset, acc.element_size};
  if (!atomics_combine(region, std::span<const rma::Run>(&one, 1), acc)) return netmod::kNotNative;
  uint64_t expected = 0;
  uint64_t value = 0;
  std::memcpy(&expected, compare, 8);
  std::memcpy(&value, swap, 8);
  if (ucx_.atomic(region.target, UCP_ATOMIC_OP_CSWAP, 8, &value, expected, true,
                  region.remote + offset, rkey_of(region.key)) != 0)
    return error();
  std::memcpy(out, &value, 8);
  return MPI_SUCCESS;
}

}  // namespace stmpi::dev::ucx
