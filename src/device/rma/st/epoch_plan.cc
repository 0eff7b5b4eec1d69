#include "device/rma/st/epoch_plan.h"

#include <algorithm>

#include <mpi.h>

#include "device/rma/shm_rma.h"

namespace stmpi::dev::rma::st {

void AccessPlan::clear() {
  slot = -1;
  seq = 0;
  targets.clear();
  epochs.clear();
  ops.clear();
  runs.clear();
  pieces.clear();
  accumulates = 0;
  copies.clear();
  packed.clear();
  waits.clear();
  writes.clear();
  copies_on_host_fn = false;
  failure.store(0, std::memory_order_relaxed);
  trigger_fn = nullptr;
  trigger_owner = nullptr;
  trigger_counter = 0;
  trigger_broken = nullptr;
  doorbell = nullptr;
}

void append_copies(const AccessPlan& plan, const DeferredOp& op,
                   std::vector<stream::CopyRange>* out) {
  const Run* runs = plan.runs.data() + op.first_run;
  const OriginPiece* pieces = plan.pieces.data() + op.first_piece;
  uint32_t r = 0, p = 0;
  uint64_t run_done = 0, piece_done = 0;
  while (r < op.run_count && p < op.piece_count) {
    const Run& run = runs[r];
    const OriginPiece& piece = pieces[p];
    const uint64_t bytes = std::min(run.bytes - run_done, piece.bytes - piece_done);
    char* remote = op.region.mapped + run.offset + run_done;
    char* local = piece.addr + piece_done;
    char* dst = op.kind == DeferredKind::kGet ? local : remote;
    const char* src = op.kind == DeferredKind::kGet ? remote : local;
    stream::CopyRange* last = out->empty() ? nullptr : &out->back();
    if (last != nullptr && static_cast<char*>(last->dst) + last->bytes == dst &&
        static_cast<const char*>(last->src) + last->bytes == src)
      last->bytes += bytes;
    else out->push_back({dst, src, bytes});
    run_done += bytes;
    piece_done += bytes;
    if (run_done == run.bytes) {
      ++r;
      run_done = 0;
    }
    if (piece_done == piece.bytes) {
      ++p;
      piece_done = 0;
    }
  }
}

void apply_accumulates(AccessPlan& plan) {
  for (const DeferredOp& op : plan.ops) {
    if (op.kind != DeferredKind::kAccumulate || op.region.kind != RegionKind::kMapped) continue;
    const OriginPiece* pieces = plan.pieces.data() + op.first_piece;
    const char* in = op.piece_count == 1 ? pieces[0].addr : nullptr;
    if (op.piece_count > 1) {
      // A noncontiguous origin is packed now, when the stream runs the
      // epoch: the data is what the buffer holds at this point of the stream.
      plan.packed.resize(op.bytes);
      pack_pieces({pieces, op.piece_count}, plan.packed.data());
      in = plan.packed.data();
    }
    const std::span<const Run> runs(plan.runs.data() + op.first_run, op.run_count);
    if (int err = ShmRma::accumulate(op.region, runs, op.acc, in, nullptr, nullptr);
        err != MPI_SUCCESS) {
      int expected = 0;
      plan.failure.compare_exchange_strong(expected, err);
    }
  }
}

}  // namespace stmpi::dev::rma::st
