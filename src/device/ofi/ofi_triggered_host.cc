// Operations of the triggered-operation pool (ofi_triggered.h) that the host
// runs when their trigger counter is reached, with their completion added to
// the completion counter as a NIC operation's would be: accumulates the NIC
// cannot apply atomically with the target's other origins, and reads
// (MPI_Get in a stream epoch; triggered reads are not posted to the NIC: the
// data must be in place, in stream order, when the epoch's trigger returns).
#include <rdma/fi_errno.h>

#include <algorithm>
#include <iterator>

#include <mpi.h>

#include "device/ofi/ofi_triggered.h"
#include "util/error.h"

namespace stmpi::dev::ofi {

void TriggeredNic::set_host_accumulate(HostAccumulate fn) {
  std::lock_guard lock(mutex_);
  host_accumulate_ = fn;
}

void TriggeredNic::set_host_get(HostGet fn) {
  std::lock_guard lock(mutex_);
  host_get_ = fn;
}

int TriggeredNic::queue_host_op_locked(HostOp op, CounterId trigger, uint64_t threshold,
                                       CounterId completion) {
  uint64_t physical = 0;
  if (const int rc = physical_threshold(trigger, threshold, &physical)) return rc;
  op.threshold = counters_[trigger].base + physical;
  op.trigger = trigger;
  op.completion = completion;
  Counter& t = counters_[trigger];
  t.max_threshold = std::max(t.max_threshold, op.threshold);
  t.host_ops.push_back(std::move(op));
  ++counters_[completion].completions_owed;
  ++counters_[completion].units;
  ++ops_in_use_;
  host_ops_unfinished_.fetch_add(1, std::memory_order_acq_rel);
  host_ops_pending_ = true;
  // Already reached (a trigger bumped before the post): runs at the next
  // add_counter, read_counter or poll, as a NIC operation would fire.
  return MPI_SUCCESS;
}

int TriggeredNic::post_read(const rma::Region& region, std::span<const rma::Run> runs,
                            std::span<const rma::st::OriginPiece> dest, CounterId trigger,
                            uint64_t threshold, CounterId completion) {
  std::lock_guard lock(mutex_);
  if (const int rc = check_post("read", trigger, completion)) return rc;
  if (host_get_ == nullptr)
    return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                            "triggered read: no host path for reads is installed");
  if (region.kind != rma::RegionKind::kNet)
    return util::make_error(MPI_ERR_INTERN,
                            "triggered read from a region of another node "
                            "that the network module did not register");
  HostOp op;
  op.read = true;
  op.region = region;
  op.runs.assign(runs.begin(), runs.end());
  op.pieces.assign(dest.begin(), dest.end());
  return queue_host_op_locked(std::move(op), trigger, threshold, completion);
}

int TriggeredNic::run_host_op(HostOp& op) {
  op.origin.resize(rma::st::pieces_bytes(op.pieces));
  if (op.read) {
    // Into a packed buffer, then the destination's pieces (pack order).
    if (const int err = host_get_(op.region, op.runs, op.origin.data()); err != MPI_SUCCESS)
      return err;
    rma::st::unpack_pieces(op.origin.data(), op.pieces);
    return MPI_SUCCESS;
  }
  rma::st::pack_pieces(op.pieces, op.origin.data());
  return host_accumulate_(op.region, op.runs, op.acc, op.origin.data());
}

void TriggeredNic::fire_host_ops(bool wait) {
  // One thread runs host operations at a time (host_run_mutex_, recursive:
  // a network wait inside one may poll its way back here). The trigger's
  // add_counter waits for its turn, so when it returns every operation its
  // bump released has run, also one that a concurrent read_counter took
  // first: a read's data is in place when the stream moves on. Other callers
  // leave the work to whoever runs it.
  std::unique_lock<std::recursive_mutex> running(host_run_mutex_, std::defer_lock);
  if (wait) running.lock();
  else if (!running.try_lock()) return;
  std::vector<HostOp> ready;
  do {
    // Take the ready ones under the lock, run them without it (each is a
    // blocking network operation), account for them under it again.
    ready.clear();
    {
      std::lock_guard lock(mutex_);
      bool left = false;
      for (Counter& c : counters_) {
        if (c.host_ops.empty()) continue;
        const uint64_t value = value_locked(c);
        auto keep = std::stable_partition(c.host_ops.begin(), c.host_ops.end(),
                                          [&](const HostOp& op) { return op.threshold > value; });
        std::move(keep, c.host_ops.end(), std::back_inserter(ready));
        c.host_ops.erase(keep, c.host_ops.end());
        left = left || !c.host_ops.empty();
      }
      host_ops_pending_ = left;
    }
    for (HostOp& op : ready) {
      const int err = run_host_op(op);
      host_ops_unfinished_.fetch_sub(1, std::memory_order_acq_rel);
      std::lock_guard lock(mutex_);
      ++stats_.host_fired;
      if (err != MPI_SUCCESS) {
        ++stats_.errors;
        for (CounterId id : {op.completion, op.trigger})
          if (counters_[id].error == MPI_SUCCESS) counters_[id].error = err;
        continue;
      }
      (void)fi_cntr_add(counters_[op.completion].cntr, 1);
    }
  } while (!ready.empty() && host_ops_pending_);  // chained on what just completed
}

}  // namespace stmpi::dev::ofi
