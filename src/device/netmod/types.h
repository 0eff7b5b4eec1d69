// Plain types of the network-module interface (netmod.h), shared by the
// modules, the selection point (modules.h) and the declaration-only entry
// points that generic device code calls (net_api.h). No module's types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stmpi::dev::netmod {

// The network modules the interface knows, built or not (STMPI_NETMOD). The
// order is the order of the performance-variable tables and of `auto`'s
// tie-break.
enum class Kind : uint8_t { kNone, kOfi, kUcx };
inline constexpr Kind kKinds[] = {Kind::kNone, Kind::kOfi, Kind::kUcx};
inline constexpr const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNone: return "none";
    case Kind::kOfi: return "ofi";
    case Kind::kUcx: return "ucx";
  }
  return "?";
}

// What the running module does natively. Generic code reads it on cold
// paths (window creation, the choice of trigger engine) and never calls an
// optional part the module does not have.
struct Capabilities {
  // put, get, flush and memory registration: windows reach members on other
  // nodes as kNet regions (else as kAm regions, by active messages).
  bool rma = false;
  // fetch_add64, compare_swap64, load64, store64 on 8-byte words of
  // registered memory (Region::native_atomics): passive locks need no target
  // progress (else the lock protocol's atomics go through active messages).
  bool atomics64 = false;
  // accumulate / compare_swap for some (op, type) pairs; the others answer
  // kNotNative and run through the shared locked path (net_rma.cc).
  bool accumulate = false;
  // fence() and add64(): operations to a target take effect in the order
  // this process issued them across a fence, and a one-way add.
  bool ordering = false;
  // triggered_ops() may succeed for some mode (else the software engine).
  bool triggered = false;
  // A thread of the module progresses other ranks' operations on this
  // rank's memory while it computes outside MPI.
  bool progress_thread = false;
};

// The statistics every module keeps (0 where it has no such thing). The
// interface lists them as MPI_T performance variables <module>_<field> for
// every known module in every build (net_api.cc); a module that is not
// running reads 0.
struct Stats {
  uint64_t credit_waits = 0;    // eager sends that waited for flow-control credits
  uint64_t reordered = 0;       // messages that arrived before a predecessor and waited
  uint64_t thread_polls = 0;    // progress-thread turns that drove the network
  uint64_t thread_sleeps = 0;   // progress-thread sleeps on the network's descriptors
  uint64_t thread_wakeups = 0;  // of those, ended by the network (not a timeout or stop)
};

// A module's answer to `auto` (STMPI_NETMOD=auto): whether it can reach the
// job's network peers from here, and how much it is preferred (higher wins;
// ties go to the earlier Kind). Local to the rank: no communication.
struct Probe {
  bool usable = false;
  int score = 0;
  std::string why;  // one line for STMPI_DEVICE_VERBOSE and errors
};

// A remote key as the owner's module packs it at registration: any size
// (libfabric: the 8-byte key; UCX: a packed rkey of tens to hundreds of
// bytes). The window layer exchanges the bytes; each origin imports them
// into a local 64-bit handle that lives in Region::key / control_key.
using KeyBlob = std::vector<std::byte>;

}  // namespace stmpi::dev::netmod
