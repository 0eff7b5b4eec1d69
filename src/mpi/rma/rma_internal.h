// Helpers shared by the files of src/mpi/rma and its stream extension
// (src/mpi/mpix); not used elsewhere.
#pragma once

#include <cstdint>
#include <vector>

#include <mpi.h>

#include "device/rma/lock/passive_lock.h"
#include "device/rma/region.h"
#include "device/rma/window_segment.h"
#include "mpi/coll/op.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi {
struct Group;
struct Win;
}  // namespace stmpi::mpi

namespace stmpi::mpi::rma {

// win_attr.cc: info hints.
void apply_hints(Win& win, int info);

// epoch.cc: may an RMA call by this process reach `target` now? Opens the
// fence epoch for use and waits for the target's post in a PSCW epoch.
// `target` is a valid rank (not MPI_PROC_NULL).
[[nodiscard]] int check_access(Win& win, int target, const char* function);
// Waits until `target` has posted the exposure epoch this process's
// access epoch (MPI_Win_start) is for, and consumes that post.
void wait_for_post(Win& win, int target);
// Request-based calls and flushes need a passive-target epoch on `target`
// (-1: any target).
[[nodiscard]] int check_passive(Win& win, int target, const char* function);
// MPI_ERR_RANK for ranks outside the window (MPI_PROC_NULL is the caller's).
[[nodiscard]] int check_rank(const Win& win, int rank, const char* arg);
// Which synchronization epochs are open, for error messages.
const char* epoch_description(const Win& win);
// The window ranks of a group's members (PSCW and stream epochs);
// MPI_ERR_GROUP, naming `function`, for a process not in the window.
[[nodiscard]] int ranks_of(const Win& win, const Group& group, const char* function,
                           std::vector<int>* ranks);

// stats.cc: counters of freed windows join the process totals.
void stats_add_freed(const dev::rma::lock::LockStats& stats);

// The device's description of an accumulate: predefined `op` on elements
// of the predefined type `basic`.
inline dev::rma::AccumulateOp accumulate_op(const Op& op, const Datatype& basic) {
  return {static_cast<util::OpKind>(op.handle & 0xff), basic.element_kind,
          static_cast<uint32_t>(basic.size)};
}

}  // namespace stmpi::mpi::rma

namespace stmpi::mpi::rma {

// Runtime parameters (STMPI_RMA_*), declared in stats.cc.
struct Settings {
  bool print_stats = false;  // print lock statistics at MPI_Finalize
  bool single_copy = true;   // reach private window memory by CMA; else active messages
  int attach_slots = 256;    // regions one process may attach to a dynamic window
  bool am_atomics = false;   // other processes' lock and signal words by active messages
};
const Settings& settings();

}  // namespace stmpi::mpi::rma
