// The kNet entries of generic device code (net_api.h): each takes the one
// network mutex and calls the running module (modules.h) through its switch.
// Also the shared locked accumulate path, and the modules' performance
// variables.
#include "device/netmod/net_api.h"

#include <cstring>
#include <mutex>
#include <vector>

#include <mpi.h>

#include "device/netmod/modules.h"
#include "device/rma/accumulate.h"
#include "device/rma/am_rma.h"
#include "device/rma/window_segment.h"
#include "util/error.h"
#include "util/pvar.h"

namespace stmpi::dev::netmod {
namespace {

// The software trigger engine (rma/st/software_triggers.h) issues kNet
// operations from streams' threads (host functions) while the MPI thread
// issues its own; a module's one-sided state (operation contexts, the
// issued count that flush waits for, blocking atomics' completions) is not
// shared safely between threads, so every kNet call goes through this one
// mutex (uncontended: tens of nanoseconds against microseconds per network
// operation).
std::mutex g_net_mutex;
using Guard = std::lock_guard<std::mutex>;

// Holds the accumulate lock of a kNet memory region's owner (a word of its
// control block) for its lifetime: remote compare-and-swap until it was 0,
// remote store of 0 to release; by the module's 64-bit atomics, or by the
// active-message fallback where it has none. Waiters yield now and then.
template <class R>
class RemoteAccumulateLock {
 public:
  RemoteAccumulateLock(R& rma, const rma::Region& region, bool atomics64)
      : rma_(rma), atomics64_(atomics64) {
    control_ = region;
    control_.remote = region.control_remote;
    control_.key = region.control_key;
    control_.native_atomics = atomics64;
    if (!atomics64) control_.kind = rma::RegionKind::kAm;
    for (int tries = 0; compare_swap(0, 1) != 0; ++tries)
      if (tries % 4 == 3) sched_yield();
  }
  ~RemoteAccumulateLock() {
    if (atomics64_) rma_.store64(control_, kOffset, 0);
    else rma::AmRma::store64(control_, kOffset, 0);
  }
  RemoteAccumulateLock(const RemoteAccumulateLock&) = delete;
  RemoteAccumulateLock& operator=(const RemoteAccumulateLock&) = delete;

 private:
  static constexpr uint64_t kOffset = rma::WindowLayout::kAccumulateLock;
  uint64_t compare_swap(uint64_t expected, uint64_t desired) {
    return atomics64_ ? rma_.compare_swap64(control_, kOffset, expected, desired)
                      : rma::AmRma::compare_swap64(control_, kOffset, expected, desired);
  }
  R& rma_;
  bool atomics64_;
  rma::Region control_;
};

// Accumulate / compare-and-swap under the target's accumulate lock, by
// remote reads and writes: atomic with the target node's local origins
// (which take the same lock: accumulate.h) and truly passive, since no step
// needs the target to call MPI. For what the module does not do natively.
template <class R>
int locked_accumulate(R& r, const rma::Region& region, std::span<const rma::Run> runs,
                      const rma::AccumulateOp& acc, const void* in, void* out) {
  uint64_t total = 0;
  for (const rma::Run& run : runs) total += run.bytes;
  std::vector<char> current(total);
  rma::Completion done;
  RemoteAccumulateLock<R> lock(r, region, modules().capabilities().atomics64);
  // Read the target's elements (packed), combine here, write them back;
  // get() waits for its data, and the writes complete before the lock is
  // released (flush).
  if (int err = r.get(region, runs, current.data(), &done)) return err;
  if (out != nullptr) std::memcpy(out, current.data(), total);
  if (acc.op == util::OpKind::kNoOp || in == nullptr) return MPI_SUCCESS;
  if (acc.op == util::OpKind::kReplace) std::memcpy(current.data(), in, total);
  else if (int err = rma::apply_packed(acc, in, current.data(), total)) return err;
  if (int err = r.put(region, runs, current.data())) return err;
  return r.flush(region.target);
}

template <class R>
int locked_compare_swap(R& r, const rma::Region& region, uint64_t offset,
                        const rma::AccumulateOp& acc, const void* compare, const void* swap,
                        void* out) {
  const rma::Run run{offset, acc.element_size};
  const std::span<const rma::Run> runs(&run, 1);
  rma::Completion done;
  RemoteAccumulateLock<R> lock(r, region, modules().capabilities().atomics64);
  if (int err = r.get(region, runs, out, &done)) return err;
  if (std::memcmp(out, compare, acc.element_size) != 0) return MPI_SUCCESS;
  if (int err = r.put(region, runs, swap)) return err;
  return r.flush(region.target);
}

// The host paths of a module's triggered operations (netmod::HostRma).
int host_accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                    const rma::AccumulateOp& acc, const void* in) {
  rma::Completion done;
  return accumulate(region, runs, acc, in, nullptr, &done);
}
int host_get(const rma::Region& region, std::span<const rma::Run> runs, void* out) {
  rma::Completion done;
  return get(region, runs, out, &done);
}

}  // namespace

Kind running() { return modules().kind(); }
Capabilities capabilities() { return modules().capabilities(); }
Stats stats(Kind kind) { return modules().kind() == kind ? modules().stats() : Stats{}; }

int register_memory(void* base, std::size_t bytes, KeyBlob* blob, void** handle) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) { return r.register_memory(base, bytes, blob, handle); });
}
void deregister_memory(void* handle) {
  Guard g(g_net_mutex);
  modules().rma([&](auto& r) { r.deregister_memory(handle); });
}
int import_key(int target, std::span<const std::byte> blob, uint64_t* local_key) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) { return r.import_key(target, blob, local_key); });
}
void release_key(int target, uint64_t local_key) {
  Guard g(g_net_mutex);
  modules().rma([&](auto& r) { r.release_key(target, local_key); });
}

int put(const rma::Region& region, std::span<const rma::Run> runs, const void* in) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) { return r.put(region, runs, in); });
}
int get(const rma::Region& region, std::span<const rma::Run> runs, void* out,
        rma::Completion* done) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) { return r.get(region, runs, out, done); });
}
int accumulate(const rma::Region& region, std::span<const rma::Run> runs,
               const rma::AccumulateOp& acc, const void* in, void* out, rma::Completion* done) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) {
    const int err = r.accumulate(region, runs, acc, in, out, done);
    return err == kNotNative ? locked_accumulate(r, region, runs, acc, in, out) : err;
  });
}
int compare_swap(const rma::Region& region, uint64_t offset, const rma::AccumulateOp& acc,
                 const void* compare, const void* swap, void* out, rma::Completion* done) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) {
    const int err = r.compare_swap(region, offset, acc, compare, swap, out, done);
    return err == kNotNative ? locked_compare_swap(r, region, offset, acc, compare, swap, out)
                             : err;
  });
}
uint64_t fetch_add64(const rma::Region& region, uint64_t offset, uint64_t add) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) { return r.fetch_add64(region, offset, add); });
}
uint64_t compare_swap64(const rma::Region& region, uint64_t offset, uint64_t expected,
                        uint64_t desired) {
  Guard g(g_net_mutex);
  return modules().rma(
      [&](auto& r) { return r.compare_swap64(region, offset, expected, desired); });
}
namespace {
// The one "fence, else flush" decision (under g_net_mutex).
template <class R>
int order_locked(R& r, int target, bool* fenced) {
  *fenced = modules().capabilities().ordering;
  return *fenced ? r.fence() : r.flush(target);
}
}  // namespace
int add64_after(const rma::Region& region, uint64_t offset, uint64_t value) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) {
    bool fenced = false;
    if (const int err = order_locked(r, region.target, &fenced)) return err;
    if (fenced) return r.add64(region, offset, value);
    (void)r.fetch_add64(region, offset, value);
    return MPI_SUCCESS;
  });
}
int order_after(int target, bool* fenced) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) { return order_locked(r, target, fenced); });
}
uint64_t load64(const rma::Region& region, uint64_t offset) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) { return r.load64(region, offset); });
}
void store64(const rma::Region& region, uint64_t offset, uint64_t value) {
  Guard g(g_net_mutex);
  modules().rma([&](auto& r) { r.store64(region, offset, value); });
}
void serve() {
  modules().rma([](auto& r) { r.serve(); });
}
int flush(int target) {
  Guard g(g_net_mutex);
  return modules().rma([&](auto& r) { return r.flush(target); });
}

int triggered_ops(rma::st::TriggerMode mode, rma::st::TriggeredOps** out) {
  Guard g(g_net_mutex);
  const HostRma host{host_accumulate, host_get};
  return modules().rma([&](auto& r) { return r.triggered_ops(mode, host, out); });
}

// ---- performance variables: the same list in every build, one table per
// known module (<module>_<field>); a module that does not run reads 0.
namespace {

template <Kind K, uint64_t Stats::*Field>
uint64_t read_stat() {
  return stats(K).*Field;
}

template <Kind K>
struct StatsPvars {
  static constexpr util::Pvar kPvars[] = {
      {"credit_waits", util::Pvar::Class::kCounter, read_stat<K, &Stats::credit_waits>,
       "eager sends that waited because the peer had returned no credits yet (flow control)"},
      {"reordered", util::Pvar::Class::kCounter, read_stat<K, &Stats::reordered>,
       "messages that arrived out of order and waited for their predecessors"},
      {"thread_polls", util::Pvar::Class::kCounter, read_stat<K, &Stats::thread_polls>,
       K == Kind::kOfi
           ? "times the progress thread drove the provider because no MPI call had polled it "
             "since its last look (STMPI_OFI_PROGRESS_THREAD_US apart)"
           : "times the progress thread drove the network because no MPI call had polled it "
             "since its last look"},
      {"thread_sleeps", util::Pvar::Class::kCounter, read_stat<K, &Stats::thread_sleeps>,
       K == Kind::kOfi ? "times the progress thread slept on the provider's descriptors "
                         "(STMPI_OFI_PROGRESS_BLOCK)"
                       : "times the progress thread slept on the network's event descriptor"},
      {"thread_wakeups", util::Pvar::Class::kCounter, read_stat<K, &Stats::thread_wakeups>,
       "sleeps of the progress thread that the network ended (the rest timed out or were "
       "stopped)"},
  };
  static constexpr util::PvarTable kTable{kind_name(K), kPvars};
};

const util::PvarRegistration kOfiPvars{&StatsPvars<Kind::kOfi>::kTable};
const util::PvarRegistration kUcxPvars{&StatsPvars<Kind::kUcx>::kTable};

}  // namespace

}  // namespace stmpi::dev::netmod
