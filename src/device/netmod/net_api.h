// What generic device code (rma/, rma/st/, windows) may ask of the network
// module: declarations only, so nothing that includes this header compiles
// a module's types (src/mpi reaches it through rma/rma.h). The definitions
// (net_api.cc) dispatch to the module the device chose (modules.h) under
// one mutex, and run the shared locked accumulate path for what the module
// does not do natively. netmod.h is the contract these calls rest on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "device/netmod/types.h"
#include "device/rma/region.h"
#include "device/rma/st/triggered_ops.h"

namespace stmpi::dev::netmod {

// The running module (Kind::kNone before init, after finalize and in jobs
// without network peers) and what it does natively.
Kind running();
Capabilities capabilities();
// The statistics of module `kind`: zeros unless it is the running one.
Stats stats(Kind kind);

// Window registration (window.cc). `*handle` goes back to deregister_memory;
// `*blob` travels to the other members, which import it.
[[nodiscard]] int register_memory(void* base, std::size_t bytes, KeyBlob* blob, void** handle);
void deregister_memory(void* handle);
[[nodiscard]] int import_key(int target, std::span<const std::byte> blob, uint64_t* local_key);
void release_key(int target, uint64_t local_key);

// RMA on kNet regions (rma.h): the RmaTransport and AtomicTransport shapes
// of region.h. Complete on return (get, fetching accumulates,
// compare_swap) or at flush (put, accumulate). MPI error codes.
[[nodiscard]] int put(const rma::Region& region, std::span<const rma::Run> runs, const void* in);
[[nodiscard]] int get(const rma::Region& region, std::span<const rma::Run> runs, void* out,
                      rma::Completion* done);
[[nodiscard]] int accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                             const rma::AccumulateOp& acc, const void* in, void* out,
                             rma::Completion* done);
[[nodiscard]] int compare_swap(const rma::Region& region, uint64_t offset,
                               const rma::AccumulateOp& acc, const void* compare, const void* swap,
                               void* out, rma::Completion* done);
uint64_t fetch_add64(const rma::Region& region, uint64_t offset, uint64_t add);
uint64_t compare_swap64(const rma::Region& region, uint64_t offset, uint64_t expected,
                        uint64_t desired);
// Adds `value` to the word once every operation this process issued to the
// region's target has taken effect there: one way where the module orders
// it (Capabilities::ordering), else a flush and a fetch-add. An error code.
[[nodiscard]] int add64_after(const rma::Region& region, uint64_t offset, uint64_t value);
// Makes what this process issues to `target` next take effect there after
// what it issued before: a fence where the module orders operations
// (*fenced = true: nothing has completed yet), else a flush of `target`.
[[nodiscard]] int order_after(int target, bool* fenced);
uint64_t load64(const rma::Region& region, uint64_t offset);
void store64(const rma::Region& region, uint64_t offset, uint64_t value);
// Progresses the running module once from any thread, without waiting for
// the RMA mutex or the module's lock (RmaModule::serve): the host streams'
// waits call it (stream/host_wait.h, installed by Modules::init).
void serve();
// Remote completion of every kNet operation issued to `target` (-1: all).
// MPI_SUCCESS when no module runs.
[[nodiscard]] int flush(int target);

// Stream-triggered RMA between nodes (rma/st/trigger_select.cc): the running
// module's TriggeredOps for `mode` (kNative or kDeferred), or
// MPI_ERR_UNSUPPORTED_OPERATION with a message naming what it lacks (st then
// falls back to its software engine under STMPI_ST_TRIGGER=auto).
[[nodiscard]] int triggered_ops(rma::st::TriggerMode mode, rma::st::TriggeredOps** out);

}  // namespace stmpi::dev::netmod
