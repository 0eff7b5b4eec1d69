// The plan of one stream-triggered epoch: what MPIX_Win_post_stream,
// MPI_Win_start(..., MPIX_MODE_STREAM, ...) + MPI_Put/MPI_Get/MPI_Accumulate,
// MPIX_Win_complete_stream and MPIX_Win_wait_stream leave for a stream to
// execute. A plan only describes the epoch; an executor (executor.h) turns it
// into stream work: merged kernels inside a node, NIC triggered operations
// between nodes.
//
// Epoch numbers: for every ordered pair (target t, origin o) both sides count
// the stream epochs between them. The k-th stream access epoch of o to t
// matches the k-th stream exposure epoch of t that includes o, as PSCW
// matches epochs in order. Signal words hold these counts (64-bit, only
// growing), so a stream waits for "word >= k" and any number of epochs can
// be enqueued before the first one runs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "device/rma/region.h"
#include "stream/stream.h"

namespace stmpi::dev::rma::st {

// Bytes of the origin buffer in pack order: one piece per contiguous block.
struct OriginPiece {
  char* addr = nullptr;
  uint64_t bytes = 0;
};

// The pieces' bytes together; copies of them, in pack order, to `out`
// (pack) or from `in` (unpack). Host paths that move a noncontiguous origin
// or destination through one contiguous buffer use these.
inline uint64_t pieces_bytes(std::span<const OriginPiece> pieces) {
  uint64_t bytes = 0;
  for (const OriginPiece& p : pieces) bytes += p.bytes;
  return bytes;
}
inline void pack_pieces(std::span<const OriginPiece> pieces, char* out) {
  for (const OriginPiece& p : pieces) {
    std::memcpy(out, p.addr, p.bytes);
    out += p.bytes;
  }
}
inline void unpack_pieces(const char* in, std::span<const OriginPiece> pieces) {
  for (const OriginPiece& p : pieces) {
    std::memcpy(p.addr, in, p.bytes);
    in += p.bytes;
  }
}

enum class DeferredKind : uint8_t { kPut, kGet, kAccumulate };

// One RMA call of a stream access epoch. Nothing is read or written when it
// is recorded: the origin buffer is read (put, accumulate) or written (get)
// when the stream executes the epoch.
struct DeferredOp {
  DeferredKind kind = DeferredKind::kPut;
  int target = 0;      // window rank
  Region region;       // the target's window memory as this process reaches it
  AccumulateOp acc;    // kAccumulate: predefined op and element type
  uint64_t bytes = 0;  // moved
  // Target runs (offsets in `region`) and origin pieces, in AccessPlan's
  // flat arrays; both cover `bytes` in pack order.
  uint32_t first_run = 0;
  uint32_t run_count = 0;
  uint32_t first_piece = 0;
  uint32_t piece_count = 0;
};

// Origin side: one access epoch, from MPI_Win_start to the stream's
// execution of MPIX_Win_complete_stream. Kept (and then recycled, capacity
// included) until the stream has executed it.
struct AccessPlan {
  // Which stream slot executes it, and its issue number there: the plan is
  // retired once that slot's retire word reaches `seq`.
  int slot = -1;
  uint64_t seq = 0;
  std::vector<int> targets;      // the start group (window ranks)
  std::vector<uint64_t> epochs;  // epochs[i]: access epoch number to targets[i]
  std::vector<DeferredOp> ops;   // in call order
  std::vector<Run> runs;
  std::vector<OriginPiece> pieces;
  uint32_t accumulates = 0;
  // Executor scratch that must live until the stream ran the epoch.
  std::vector<stream::CopyRange> copies;
  std::vector<char> packed;
  // An epoch completed in one stream step (stream::EpochStep): its waits
  // and its writes, the plan's retire word last.
  std::vector<stream::SignalWait> waits;
  std::vector<stream::SignalWrite> writes;
  bool copies_on_host_fn = false;  // the host function does the copies too
  // First failure of work the stream ran for this plan (an MPI error class).
  std::atomic<int> failure{0};
  // Between nodes (triggered_op_executor.h): the host function that moves
  // the epoch's data calls trigger_fn(plan) last, which adds 1 to the
  // epoch's trigger counter and so releases its triggered operations;
  // `doorbell`, when the network module has one, is where a GPU stream
  // stores instead.
  void (*trigger_fn)(AccessPlan& plan) = nullptr;
  void* trigger_owner = nullptr;
  uint32_t trigger_counter = 0;
  const std::atomic<bool>* trigger_broken = nullptr;  // the window failed: fire nothing
  uint64_t* doorbell = nullptr;

  // Empties the plan for reuse; keeps the vectors' capacity.
  void clear();
};

// Target side: one exposure epoch.
struct ExposurePlan {
  std::vector<int> origins;      // the post group (window ranks)
  std::vector<uint64_t> epochs;  // epochs[i]: exposure epoch number to origins[i]
};

// Appends the copies of a put or a get to `out`: the target runs and origin
// pieces paired up, adjacent copies merged. The region must be mapped.
void append_copies(const AccessPlan& plan, const DeferredOp& op,
                   std::vector<stream::CopyRange>* out);

// Runs the accumulates of a plan on memory this process maps, each element
// atomically with respect to every other accumulate on the target (the
// device's accumulate lock or CPU atomics). Records a failure in the plan.
void apply_accumulates(AccessPlan& plan);

}  // namespace stmpi::dev::rma::st
