// OfiRma's region operations (netmod::RmaModule): window registration and
// keys, put/get/accumulates per run, and the triggered-operation pools.
#include <cstring>
#include <string>

#include "device/ofi/ofi_rma.h"
#include "device/ofi/ofi_triggered.h"
#include "device/rma/accumulate.h"
#include "util/error.h"

namespace stmpi::dev::ofi {

// The blob is the registration's 8-byte key: origins use it as it is.
int OfiRma::register_memory(void* base, std::size_t bytes, netmod::KeyBlob* blob, void** handle) {
  *handle = nullptr;
  if (!ofi_.initialized()) return error("the network module is not running");
  auto* reg = new Registration;
  if (int err = register_window(base, bytes, reg)) {
    delete reg;
    return err;
  }
  blob->resize(sizeof reg->key);
  std::memcpy(blob->data(), &reg->key, sizeof reg->key);
  *handle = reg;
  return MPI_SUCCESS;
}

void OfiRma::deregister_memory(void* handle) {
  if (handle == nullptr) return;
  auto* reg = static_cast<Registration*>(handle);
  deregister_window(reg);
  delete reg;
}

int OfiRma::import_key(int target, std::span<const std::byte> blob, uint64_t* local_key) {
  if (blob.size() != sizeof *local_key)
    return error("rank " + std::to_string(target) + " sent a " + std::to_string(blob.size()) +
                 "-byte key; libfabric keys have 8");
  std::memcpy(local_key, blob.data(), sizeof *local_key);
  return MPI_SUCCESS;
}

int OfiRma::put(const rma::Region& region, std::span<const rma::Run> runs, const void* in) {
  const char* at = static_cast<const char*>(in);
  for (const rma::Run& run : runs) {
    if (int err = put(region.target, at, run.bytes, address(region, run.offset), region.key))
      return err;
    at += run.bytes;
  }
  return MPI_SUCCESS;
}

int OfiRma::get(const rma::Region& region, std::span<const rma::Run> runs, void* out,
                rma::Completion* /*done: complete on return*/) {
  char* at = static_cast<char*>(out);
  for (const rma::Run& run : runs) {
    if (int err = get(region.target, at, run.bytes, address(region, run.offset), region.key))
      return err;
    at += run.bytes;
  }
  return flush();
}

namespace {

// Whether the target's node combines these elements with CPU atomics, so
// that a NIC atomic is atomic with its local origins (ofi_rma.h).
bool nic_combines(const rma::Region& region, std::span<const rma::Run> runs,
                  const rma::AccumulateOp& acc) {
  if (!rma::uses_native_atomics(region, acc)) return false;
  for (const rma::Run& run : runs)
    if ((region.remote + run.offset) % 8 != 0) return false;
  return true;
}

}  // namespace

int OfiRma::accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                       const rma::AccumulateOp& acc, const void* in, void* out,
                       rma::Completion* /*done: complete on return*/) {
  fi_op op;
  fi_datatype type;
  const bool fetch = out != nullptr;
  if (!nic_combines(region, runs, acc) || !native(acc, fetch ? 1 : 0, &op, &type))
    return netmod::kNotNative;
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  for (const rma::Run& run : runs) {
    const std::size_t count = run.bytes / acc.element_size;
    const uint64_t raddr = address(region, run.offset);
    const int err = fetch
                        ? fetch_atomic(region.target, op, type, src, dst, count, raddr, region.key)
                        : atomic(region.target, op, type, src, count, raddr, region.key);
    if (err) return err;
    if (src) src += run.bytes;
    if (dst) dst += run.bytes;
  }
  return fetch ? flush() : MPI_SUCCESS;
}

int OfiRma::compare_swap(const rma::Region& region, uint64_t offset, const rma::AccumulateOp& acc,
                         const void* compare, const void* swap, void* out,
                         rma::Completion* /*done: complete on return*/) {
  fi_datatype type;
  const rma::Run one{offset, acc.element_size};
  if (!nic_combines(region, std::span<const rma::Run>(&one, 1), acc) ||
      !fi_datatype_of(acc.element, &type) || !ofi_.atomic_valid(2, FI_CSWAP, type))
    return netmod::kNotNative;
  if (int err = compare_atomic(region.target, type, compare, swap, out, address(region, offset),
                               region.key))
    return err;
  return flush();
}

int OfiRma::triggered_ops(rma::st::TriggerMode mode, const netmod::HostRma& host,
                          rma::st::TriggeredOps** out) {
  *out = nullptr;
  if (mode != rma::st::TriggerMode::kNative && mode != rma::st::TriggerMode::kDeferred)
    return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                            "the network module has no software trigger path");
  if (!ofi_.initialized())
    return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                            "%s triggered operations: the network module is not running",
                            rma::st::trigger_mode_name(mode));
  const int which = mode == rma::st::TriggerMode::kNative ? 0 : 1;
  if (refused_[which] != MPI_SUCCESS) return refused_[which];
  if (!pools_[which]) {
    const int rc = TriggeredNic::open(ofi_, mode, budget_from_settings(), &pools_[which]);
    if (rc != MPI_SUCCESS) return refused_[which] = rc;
    // What the NIC cannot do atomically, and reads, run through the
    // device's serialized kNet path when their trigger is reached.
    pools_[which]->set_host_accumulate(host.accumulate);
    pools_[which]->set_host_get(host.get);
  }
  *out = pools_[which].get();
  return MPI_SUCCESS;
}

}  // namespace stmpi::dev::ofi
