// The device RMA interface: the operations the MPI layer (src/mpi/rma) and
// the passive-lock protocol (lock/) use, dispatched to a transport by the
// region's kind (region.h explains the transports and regions).
#pragma once

#include <cstdint>
#include <span>

#include "device/rma/am_rma.h"
#include "device/rma/cma_rma.h"
#include "device/rma/net_rma.h"
#include "device/rma/shm_rma.h"

namespace stmpi::dev::rma {

static_assert(AtomicTransport<ShmRma>);
static_assert(RmaTransport<CmaRma>);
static_assert(AtomicTransport<AmRma>);
static_assert(AtomicTransport<NetRma>);

// Writes the packed bytes `in` to the runs of `region`. Locally complete
// on return (the origin buffer may be reused); remotely complete after
// flush().
[[nodiscard]] inline int put(const Region& region, std::span<const Run> runs, const void* in) {
  switch (region.kind) {
    case RegionKind::kMapped: return ShmRma::put(region, runs, in);
    case RegionKind::kCma: return CmaRma::put(region, runs, in);
    case RegionKind::kAm: return AmRma::put(region, runs, in);
    case RegionKind::kNet: return NetRma::put(region, runs, in);
  }
  return 0;
}

// Reads the runs of `region` into `out` (packed). Complete on return unless
// `done->pending` was raised (kAm): then complete when it drops to zero.
[[nodiscard]] inline int get(const Region& region, std::span<const Run> runs, void* out,
                             Completion* done) {
  switch (region.kind) {
    case RegionKind::kMapped: return ShmRma::get(region, runs, out, done);
    case RegionKind::kCma: return CmaRma::get(region, runs, out, done);
    case RegionKind::kAm: return AmRma::get(region, runs, out, done);
    case RegionKind::kNet: return NetRma::get(region, runs, out, done);
  }
  return 0;
}

// target = op(in, target) element-wise and atomically per element; with
// `out`, the previous target values are returned there (packed). `in` may
// be null for MPI_NO_OP. Completion as for get() when `out` is set.
[[nodiscard]] inline int accumulate(const Region& region, std::span<const Run> runs,
                                    const AccumulateOp& acc, const void* in, void* out,
                                    Completion* done) {
  switch (region.kind) {
    case RegionKind::kMapped: return ShmRma::accumulate(region, runs, acc, in, out, done);
    case RegionKind::kCma: return CmaRma::accumulate(region, runs, acc, in, out, done);
    case RegionKind::kAm: return AmRma::accumulate(region, runs, acc, in, out, done);
    case RegionKind::kNet: return NetRma::accumulate(region, runs, acc, in, out, done);
  }
  return 0;
}

// One element of `acc.basic` at `offset`: out = target; if target == compare,
// target = swap. Atomic with respect to accumulates.
[[nodiscard]] inline int compare_swap(const Region& region, uint64_t offset,
                                      const AccumulateOp& acc, const void* compare,
                                      const void* swap, void* out, Completion* done) {
  switch (region.kind) {
    case RegionKind::kMapped:
      return ShmRma::compare_swap(region, offset, acc, compare, swap, out, done);
    case RegionKind::kCma:
      return CmaRma::compare_swap(region, offset, acc, compare, swap, out, done);
    case RegionKind::kAm: return AmRma::compare_swap(region, offset, acc, compare, swap, out, done);
    case RegionKind::kNet:
      return NetRma::compare_swap(region, offset, acc, compare, swap, out, done);
  }
  return 0;
}

// Raw 64-bit atomics on 8-byte aligned words (the lock protocol's words,
// PSCW and fence signals). Mapped regions use CPU atomics, kNet regions the
// network module's where it has them; every other region goes to the one
// active-message fallback (AmRma), which the owner applies with CPU atomics.
inline bool cpu_atomics(const Region& region) { return region.kind == RegionKind::kMapped; }
inline bool net_atomics(const Region& region) {
  return region.kind == RegionKind::kNet && region.native_atomics;
}

inline uint64_t fetch_add64(const Region& region, uint64_t offset, uint64_t add) {
  if (cpu_atomics(region)) [[likely]]
    return ShmRma::fetch_add64(region, offset, add);
  if (net_atomics(region)) return NetRma::fetch_add64(region, offset, add);
  return AmRma::fetch_add64(region, offset, add);
}
// Returns the previous value; the swap happened iff it equals `expected`.
inline uint64_t compare_swap64(const Region& region, uint64_t offset, uint64_t expected,
                               uint64_t desired) {
  if (cpu_atomics(region)) [[likely]]
    return ShmRma::compare_swap64(region, offset, expected, desired);
  if (net_atomics(region)) return NetRma::compare_swap64(region, offset, expected, desired);
  return AmRma::compare_swap64(region, offset, expected, desired);
}
inline uint64_t load64(const Region& region, uint64_t offset) {
  if (cpu_atomics(region)) [[likely]]
    return ShmRma::load64(region, offset);
  if (net_atomics(region)) return NetRma::load64(region, offset);
  return AmRma::load64(region, offset);
}
inline void store64(const Region& region, uint64_t offset, uint64_t value) {
  if (cpu_atomics(region)) [[likely]]
    return ShmRma::store64(region, offset, value);
  if (net_atomics(region)) return NetRma::store64(region, offset, value);
  AmRma::store64(region, offset, value);
}

// Completes every operation this process issued to `target` (world rank)
// at the target: waits for active-message acknowledgements (progressing the
// device meanwhile) and orders memory. flush_all() does it for every target.
[[nodiscard]] int flush(int target);
[[nodiscard]] int flush_all();

// Waits (progressing the device, yielding after a while) until `done` has
// no pending part; returns its error.
[[nodiscard]] int wait(Completion& done);

}  // namespace stmpi::dev::rma
