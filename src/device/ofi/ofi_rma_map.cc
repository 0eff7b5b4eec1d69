// OfiRma's cold parts: the window-memory hook, error codes, op and type
// names, accumulates under the target's accumulate lock.
#include <sched.h>

#include <cstring>
#include <string>
#include <vector>

#include "device/ofi/ofi_rma.h"
#include "util/error.h"

namespace stmpi::dev::ofi {

int OfiRma::error(const Ofi& ofi) {
  return util::make_error(MPI_ERR_OTHER, "network RMA: %s", ofi.error().c_str());
}

int register_net_memory(void* base, std::size_t bytes, rma::NetRegistration* out,
                        Registration** handle) {
  Ofi* ofi = instance();
  if (ofi == nullptr)
    return util::make_error(MPI_ERR_OTHER, "network RMA: the network module is not running");
  auto* reg = new Registration;
  std::string error;
  if (ofi->register_window(base, bytes, reg, &error) != 0) {
    delete reg;
    return util::make_error(MPI_ERR_OTHER, "network RMA: registering %zu bytes: %s", bytes,
                            error.c_str());
  }
  // The owner's virtual address: OfiRma turns it into what the provider
  // wants (virtual address or offset), and the active-message fallback
  // uses it as it is.
  out->remote = reinterpret_cast<uint64_t>(base);
  out->key = reg->key;
  out->native_atomics = OfiRma::native_atomics64();
  *handle = reg;
  return MPI_SUCCESS;
}

void release_net_memory(Registration* handle) {
  if (handle == nullptr) return;
  if (Ofi* ofi = instance()) ofi->deregister_window(handle);
  delete handle;
}

namespace {

// Holds the accumulate lock of a kNet memory region's owner (a word of its
// control block) for its lifetime: remote compare-and-swap until it was 0,
// remote store of 0 to release. Waiters back off, then yield.
class RemoteAccumulateLock {
 public:
  RemoteAccumulateLock(Ofi& ofi, const rma::Region& region) : ofi_(ofi), region_(region) {
    const uint64_t at = address();
    for (int tries = 0; ofi_.compare_swap64(region_.target, at, region_.control_key, 0, 1) != 0;
         ++tries)
      if (tries % 4 == 3) sched_yield();
  }
  ~RemoteAccumulateLock() { ofi_.store64(region_.target, address(), region_.control_key, 0); }
  RemoteAccumulateLock(const RemoteAccumulateLock&) = delete;
  RemoteAccumulateLock& operator=(const RemoteAccumulateLock&) = delete;

 private:
  uint64_t address() const {
    const uint64_t offset = rma::WindowLayout::kAccumulateLock;
    return ofi_.virt_addr() ? region_.control_remote + offset : offset;
  }
  Ofi& ofi_;
  const rma::Region& region_;
};

}  // namespace

int OfiRma::locked_accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                              const rma::AccumulateOp& acc, const void* in, void* out) {
  Ofi& ofi = *instance();
  uint64_t total = 0;
  for (const rma::Run& run : runs) total += run.bytes;
  std::vector<char> current(total);
  RemoteAccumulateLock lock(ofi, region);
  // Read the target's elements (packed), combine here, write them back;
  // get() waits for its data, and the writes complete before the lock is
  // released (flush).
  if (int err = get(region, runs, current.data(), nullptr)) return err;
  if (out != nullptr) std::memcpy(out, current.data(), total);
  if (acc.op == util::OpKind::kNoOp || in == nullptr) return MPI_SUCCESS;
  if (acc.op == util::OpKind::kReplace) std::memcpy(current.data(), in, total);
  else if (int err = rma::apply_packed(acc, in, current.data(), total)) return err;
  if (int err = put(region, runs, current.data())) return err;
  return ofi.flush() == 0 ? MPI_SUCCESS : error(ofi);
}

int OfiRma::locked_compare_swap(const rma::Region& region, uint64_t offset,
                                const rma::AccumulateOp& acc, const void* compare, const void* swap,
                                void* out) {
  Ofi& ofi = *instance();
  const rma::Run run{offset, acc.element_size};
  const std::span<const rma::Run> runs(&run, 1);
  RemoteAccumulateLock lock(ofi, region);
  if (int err = get(region, runs, out, nullptr)) return err;
  if (std::memcmp(out, compare, acc.element_size) != 0) return MPI_SUCCESS;
  if (int err = put(region, runs, swap)) return err;
  return ofi.flush() == 0 ? MPI_SUCCESS : error(ofi);
}

}  // namespace stmpi::dev::ofi
