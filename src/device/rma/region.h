// Types of the device RMA interface (rma.h): regions, runs, completions
// and the concepts a transport satisfies. Included by every transport.
//
// The device RMA interface: what the MPI layer (src/mpi/rma) and the
// passive-lock protocol (lock/) may ask of a transport for one-sided
// communication. Every operation is addressed as (target, registered region,
// offset): a Region says how this process reaches one target's memory.
//
// Transports are concrete final classes satisfying the RmaTransport concept:
//   ShmRma  (shm_rma.h)  memory every process of the node maps: memcpy and
//                        CPU atomics;
//   CmaRma  (cma_rma.h)  private memory of a process on this node: Linux
//                        single copy (process_vm_readv / process_vm_writev);
//   NetRma  (net_rma.h)  memory on another node registered with the network
//                        module (device/netmod/netmod.h: the running module's
//                        RMA class, e.g. libfabric's fi_write, fi_read,
//                        fi_atomic);
//   AmRma   (am_rma.h)   anything else: active messages through the device,
//                        applied by the target when it polls.
// The functions of rma.h pick one with a plain switch on the region's
// kind; there is no virtual call per operation.
//
// What each transport does natively (docs/design/rma.md has the table):
//   put/get            all four;
//   64-bit atomics     ShmRma (CPU atomics), NetRma where the network module
//                      does them (Region::native_atomics), AmRma
//                      (the fallback, which needs the target's progress);
//                      CmaRma none: control words are always reached as
//                      mapped (kMapped), network (kNet) or AM (kAm) regions;
//   accumulate         ShmRma: CPU atomics for 8-byte integers, the target's
//                      accumulate lock for the rest; CmaRma: the accumulate
//                      lock (mapped) around read-modify-write by single copy;
//                      NetRma: NIC atomics where the target's node uses CPU
//                      atomics, else the accumulate lock taken by remote
//                      compare-and-swap (netmod/net_api.cc); AmRma: the
//                      target applies it under
//                      the same lock.
// All share the target's accumulate lock, so accumulates stay element-wise
// atomic when origins reach one target by different transports.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

#include "util/element_kind.h"
#include "util/reduce.h"

namespace stmpi::dev::rma {

enum class RegionKind : uint8_t {
  kMapped,  // mapped by this process: loads, stores and CPU atomics
  kCma,     // private memory of another process of the node
  kAm,      // reachable only through the target's progress
  kNet,     // registered with the network module (remote address + key)
};

// One registered region of one target, as this process reaches it.
struct Region {
  RegionKind kind = RegionKind::kMapped;
  // kMapped: every origin reaches this memory through a mapping, so 8-byte
  // integer accumulates may use CPU atomics instead of the accumulate lock.
  // kNet: the network module does 64-bit atomics on it (else the
  // active-message fallback does them).
  bool native_atomics = false;
  int target = -1;         // world rank of the owner
  char* mapped = nullptr;  // kMapped: the region's first byte in this process
  uint64_t remote = 0;     // kCma, kAm, kNet: the region's first byte in the owner
  uint64_t bytes = 0;
  pid_t pid = 0;  // kCma: the owner's process id
  // The owner's accumulate lock (always mapped: it lives in the window's
  // control segment).
  std::atomic<uint64_t>* acc_lock = nullptr;
  uint64_t am_window = 0;  // kAm: the window id the owner's handler looks up
  uint64_t key = 0;        // kNet: the network module's key for the region
  // kNet window memory: the owner's control block (address and key), whose
  // accumulate lock serializes accumulates the NIC cannot do atomically.
  uint64_t control_remote = 0;
  uint64_t control_key = 0;
};

// `bytes` bytes at `offset` from the start of a region. A noncontiguous
// target is a list of runs; the origin side is always packed: the runs'
// bytes back to back, in list order.
struct Run {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// Completion of operations that finish after the call returns (active
// messages). Synchronous transports leave it alone.
struct Completion {
  std::atomic<int> pending{0};
  int error = 0;  // first failure reported by the target (MPI error code)
};

// The element type and operation of an accumulate: a predefined operation
// (one-sided accumulates allow no others) on elements of the predefined
// type both sides are made of; runs hold whole elements.
struct AccumulateOp {
  util::OpKind op = util::OpKind::kNoOp;
  util::ElementKind element = util::ElementKind::kNone;
  uint32_t element_size = 0;  // bytes of one element
};

// What a transport must provide. `int` results are MPI error codes.
template <class T>
concept RmaTransport = requires(const Region& region, std::span<const Run> runs, const void* in,
                                void* out, const AccumulateOp& acc, uint64_t offset,
                                Completion* done) {
  { T::put(region, runs, in) } -> std::same_as<int>;
  { T::get(region, runs, out, done) } -> std::same_as<int>;
  { T::accumulate(region, runs, acc, in, out, done) } -> std::same_as<int>;
  { T::compare_swap(region, offset, acc, in, in, out, done) } -> std::same_as<int>;
};

// Transports that can also do raw 64-bit remote atomics (the lock protocol).
template <class T>
concept AtomicTransport = RmaTransport<T> &&
    requires(const Region& region, uint64_t offset, uint64_t value) {
  { T::fetch_add64(region, offset, value) } -> std::same_as<uint64_t>;
  { T::compare_swap64(region, offset, value, value) } -> std::same_as<uint64_t>;
  { T::load64(region, offset) } -> std::same_as<uint64_t>;
  {T::store64(region, offset, value)};
};

}  // namespace stmpi::dev::rma
