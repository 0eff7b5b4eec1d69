// The network-module interface: what a module that reaches ranks on other
// nodes MUST provide and what it MAY provide. The one written contract
// (src/device/README.md, "Adding a network module", is the checklist that
// follows it). A module is two concrete `final` classes in
// src/device/<name>/, namespace stmpi::dev::<name>:
//
//   the transport  (e.g. ofi::Ofi)     satisfies netmod::Module below;
//   its RMA class  (e.g. ofi::OfiRma)  satisfies netmod::RmaModule below,
//                  constructed from a reference to the transport.
//
// The device owns one object of each built module (modules.h, the one
// selection point) and calls the chosen one through a switch on
// netmod::Kind: no virtual call per message or per operation. Generic code
// never names a module's types; it calls net_api.h (declarations only).
//
// MUST (Module):
//   the messaging Transport concept of device/transport.h (send, poll,
//   max_payload, expose, unexpose, pull), plus
//   probe(my_rank, table, &probe) -> int   cheap and local: can it reach the
//       kNet peers of `table`, and its preference for STMPI_NETMOD=auto;
//   init(my_rank, table, pmi) -> int       collective over the job: every
//       rank calls it (also ranks without kNet peers, which return at once:
//       the table says the same on every rank); exchanges addresses by PMI;
//   finalize()                             after the device's last barrier;
//       never hangs (a time limit on every wait), callable twice;
//   capabilities() -> Capabilities          valid after init;
//   stats() -> Stats                        read by MPI_T at any time (also
//       before init and after finalize: plain counters);
//   description() -> std::string            one line: library, provider or
//       transports, for STMPI_DEVICE_VERBOSE and stmpi_info.
//   Every int is an MPI error code; failures carry the library's own text
//   (util::make_error). A failure no request can report (a failed eager
//   send) aborts the job with a message naming the peer.
//
// MAY (RmaModule; derive from RmaUnsupported and override what you have,
// as libfabric's fi_enosys does, and report it in capabilities()):
//   register_memory / deregister_memory     window memory and control blocks;
//       the key is a KeyBlob of any size;
//   import_key / release_key                an origin turns a target's blob
//       into a local 64-bit handle (Region::key, Region::control_key);
//   put, get, flush(target | -1)            Capabilities::rma;
//   accumulate, compare_swap                Capabilities::accumulate; per
//       call, kNotNative sends the operation to the shared locked path
//       (net_rma.cc: the target's accumulate lock by remote compare-and-swap,
//       get, combine, put), which needs only put/get and atomics64;
//   fetch_add64, compare_swap64, load64, store64   Capabilities::atomics64
//       (the passive-lock protocol: blocking, return the old value; a
//       failure aborts the job with the library's text);
//   fence(), add64(region, offset, value)   Capabilities::ordering:
//       fence() makes the operations issued after it take effect at their
//       target after those issued before it; add64 adds to the word without
//       waiting for an answer (complete at the next flush). The device puts
//       the two together in one place (net_api.cc: add64_after, order_after)
//       for PSCW signals, lock releases and the software trigger engine;
//       without them it flushes first;
//   triggered_ops(mode, host, &ops)          Capabilities::triggered: the
//       module's st::TriggeredOps for kNative or kDeferred, owned by the
//       RMA object and closed by its finalize();
//   serve()                                 from any thread, never blocks:
//       progresses the network once if nobody else does, so that other
//       ranks' operations on this rank's memory take effect (a host stream
//       waiting for a word another node writes calls it; a module whose
//       NIC or library thread applies them leaves it empty);
//   finalize()                              before the transport's finalize;
//   a progress thread                       inside the module (Stats fields
//       thread_*; Capabilities::progress_thread).
// What a module lacks falls back in one shared place: active messages
// (device/rma/am_rma.*) for regions without RMA or atomics, the locked
// accumulate path (net_rma.cc), the software trigger engine (rma/st).
//
// Threads: the device calls every RMA entry under one mutex (net_rma.cc,
// net_mutex()): a stream's thread (the software trigger engine) and the MPI
// thread never run the module's RMA at once. Transport calls come from the
// thread that holds the library's lock (progress). A module's own progress
// thread must not call back into the device.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <mpi.h>

#include "device/device.h"
#include "device/netmod/types.h"
#include "device/rma/region.h"
#include "device/rma/st/triggered_ops.h"
#include "device/transport.h"

namespace stmpi::pmi {
class Client;
}

namespace stmpi::dev::netmod {

// An accumulate or compare_swap the module does not do natively for this
// (op, type, alignment): the device runs it through the shared locked path.
// A plain code, no message (cheap on the fast path).
inline constexpr int kNotNative = MPI_ERR_UNSUPPORTED_OPERATION;

// The host paths a module's triggered operations use for what the NIC
// cannot do (accumulates it cannot apply atomically, reads): the device's
// serialized kNet entries (net_api.h), handed over by triggered_ops().
struct HostRma {
  int (*accumulate)(const rma::Region& region, std::span<const rma::Run> runs,
                    const rma::AccumulateOp& acc, const void* in) = nullptr;
  int (*get)(const rma::Region& region, std::span<const rma::Run> runs, void* out) = nullptr;
};

// MUST: the transport of a network module.
template <class T>
concept Module = Transport<T> &&
    requires(T t, const T& ct, int rank, std::span<const PeerInfo> table, pmi::Client& pmi,
             Probe* probe) {
  { t.probe(rank, table, probe) } -> std::same_as<int>;
  { t.init(rank, table, pmi) } -> std::same_as<int>;
  {t.finalize()};
  { ct.capabilities() } -> std::same_as<Capabilities>;
  { ct.stats() } -> std::same_as<Stats>;
  { ct.description() } -> std::convertible_to<std::string>;
};

// MAY: the RMA class of a network module (every member; RmaUnsupported
// supplies the absent ones). Regions are kNet regions of window.h: `remote`
// is the owner's virtual address of the region's first byte, `key` (and
// `control_key`, `control_remote` for the owner's control block) what
// import_key returned. `done` is left alone: kNet operations complete on
// return (get, fetching accumulates) or at flush (put, accumulate).
template <class R>
concept RmaModule = requires(R r, const rma::Region& region, std::span<const rma::Run> runs,
                             const void* in, void* out, const rma::AccumulateOp& acc,
                             uint64_t offset, uint64_t value, rma::Completion* done, void* base,
                             std::size_t bytes, KeyBlob* blob, void** handle, int target,
                             std::span<const std::byte> packed, uint64_t* local_key,
                             rma::st::TriggerMode mode, const HostRma& host,
                             rma::st::TriggeredOps** ops) {
  // Registration: `*blob` is what members on other nodes import, `*handle`
  // what deregister_memory releases.
  { r.register_memory(base, bytes, blob, handle) } -> std::same_as<int>;
  {r.deregister_memory(*handle)};
  { r.import_key(target, packed, local_key) } -> std::same_as<int>;
  {r.release_key(target, value)};
  // Data movement.
  { r.put(region, runs, in) } -> std::same_as<int>;
  { r.get(region, runs, out, done) } -> std::same_as<int>;
  { r.accumulate(region, runs, acc, in, out, done) } -> std::same_as<int>;
  { r.compare_swap(region, offset, acc, in, in, out, done) } -> std::same_as<int>;
  // 64-bit atomics for the lock protocol.
  { r.fetch_add64(region, offset, value) } -> std::same_as<uint64_t>;
  { r.compare_swap64(region, offset, value, value) } -> std::same_as<uint64_t>;
  { r.fence() } -> std::same_as<int>;
  { r.add64(region, offset, value) } -> std::same_as<int>;
  { r.load64(region, offset) } -> std::same_as<uint64_t>;
  {r.store64(region, offset, value)};
  // Remote completion of everything issued to `target` (-1: every target).
  { r.flush(target) } -> std::same_as<int>;
  {r.serve()};
  { r.triggered_ops(mode, host, ops) } -> std::same_as<int>;
  {r.finalize()};
};

// The "unsupported" answers: a module's RMA class derives from this and
// hides what it implements. Also the RMA class of the stub module.
class RmaUnsupported {
 public:
  int register_memory(void*, std::size_t, KeyBlob*, void** handle) {
    *handle = nullptr;
    return unsupported("memory registration");
  }
  void deregister_memory(void*) {}
  int import_key(int, std::span<const std::byte>, uint64_t* local_key) {
    *local_key = 0;
    return unsupported("remote keys");
  }
  void release_key(int, uint64_t) {}
  int put(const rma::Region&, std::span<const rma::Run>, const void*) { return unsupported("put"); }
  int get(const rma::Region&, std::span<const rma::Run>, void*, rma::Completion*) {
    return unsupported("get");
  }
  int accumulate(const rma::Region&, std::span<const rma::Run>, const rma::AccumulateOp&,
                 const void*, void*, rma::Completion*) {
    return kNotNative;
  }
  int compare_swap(const rma::Region&, uint64_t, const rma::AccumulateOp&, const void*, const void*,
                   void*, rma::Completion*) {
    return kNotNative;
  }
  // Never called when capabilities().atomics64 is false (regions then have
  // native_atomics false); a call is a device bug and aborts.
  uint64_t fetch_add64(const rma::Region&, uint64_t, uint64_t) { no_atomics(); }
  uint64_t compare_swap64(const rma::Region&, uint64_t, uint64_t, uint64_t) { no_atomics(); }
  // Never called when capabilities().ordering is false.
  int fence() { return unsupported("fence"); }
  int add64(const rma::Region&, uint64_t, uint64_t) { return unsupported("one-way add"); }
  uint64_t load64(const rma::Region&, uint64_t) { no_atomics(); }
  void store64(const rma::Region&, uint64_t, uint64_t) { no_atomics(); }
  int flush(int) { return MPI_SUCCESS; }
  void serve() {}
  int triggered_ops(rma::st::TriggerMode mode, const HostRma&, rma::st::TriggeredOps** ops) {
    *ops = nullptr;
    return unsupported(rma::st::trigger_mode_name(mode));
  }
  void finalize() {}

 protected:
  // MPI_ERR_UNSUPPORTED_OPERATION with "the network module has no <what>".
  static int unsupported(const char* what);
  [[noreturn]] static void no_atomics();
};

}  // namespace stmpi::dev::netmod
