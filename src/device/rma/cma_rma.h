// CmaRma: RMA on private memory of another process of the node (windows
// made by MPI_Win_create over user memory, dynamic windows) by Linux single
// copy: process_vm_writev for puts, process_vm_readv for gets. The target
// takes no part, so passive-target epochs stay passive. Accumulates lock
// the target's accumulate word (mapped) and read, combine and write back.
// Everything completes before the call returns.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>

#include "device/rma/region.h"

namespace stmpi::dev::rma {

class CmaRma final {
 public:
  static int put(const Region& region, std::span<const Run> runs, const void* in);
  static int get(const Region& region, std::span<const Run> runs, void* out, Completion* done);
  static int accumulate(const Region& region, std::span<const Run> runs, const AccumulateOp& acc,
                        const void* in, void* out, Completion* done);
  static int compare_swap(const Region& region, uint64_t offset, const AccumulateOp& acc,
                          const void* compare, const void* swap, void* out, Completion* done);

  // Whether this process may read `bytes` bytes at `address` in process
  // `pid` (ptrace rules, CMA compiled in). Window creation asks once per
  // target and picks active messages when the answer is no.
  static bool reachable(pid_t pid, uint64_t address, uint64_t bytes);
};

}  // namespace stmpi::dev::rma
