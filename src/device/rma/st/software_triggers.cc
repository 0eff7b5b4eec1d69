#include "device/rma/st/software_triggers.h"

#include <algorithm>
#include <new>

#include <mpi.h>

#include "device/rma/rma.h"
#include "util/error.h"

namespace stmpi::dev::rma::st {

SoftwareTriggers::SoftwareTriggers(int counters, int fault_inject)
    : counters_(new Counter[static_cast<std::size_t>(std::max(counters, 1))]),
      count_(std::max(counters, 1)),
      fault_inject_(fault_inject) {
  free_.reserve(static_cast<std::size_t>(count_));
  retired_.reserve(static_cast<std::size_t>(count_));
  for (int i = count_ - 1; i >= 0; --i) free_.push_back(static_cast<CounterId>(i));
}

SoftwareTriggers::~SoftwareTriggers() = default;

int SoftwareTriggers::check_id(CounterId id, const char* what) const {
  if (id < static_cast<CounterId>(count_) && counters_[id].in_use.load(std::memory_order_acquire))
    return MPI_SUCCESS;
  return util::make_error(MPI_ERR_INTERN,
                          "software trigger engine: %s on counter %u, which is "
                          "not in use (pool of %d)",
                          what, id, count_);
}

bool SoftwareTriggers::pop_free(CounterId* out) {
  std::lock_guard<std::mutex> guard(pool_mutex_);
  if (free_.empty()) return false;
  *out = free_.back();
  free_.pop_back();
  return true;
}

void SoftwareTriggers::recycle_retired() {
  if (!has_retired_.load(std::memory_order_acquire)) return;
  flush_unflushed();  // no deferred completion may land on a recycled counter
  take_incoming();
  std::lock_guard<std::mutex> guard(pool_mutex_);
  for (CounterId id : retired_) {
    counters_[id].waiting.clear();  // operations of a broken chain never fire
    free_.push_back(id);
  }
  retired_.clear();
  has_retired_.store(false, std::memory_order_relaxed);
}

// Fast path: a free counter, without the engine mutex. Only when none is
// free and some are retired does it wait for the end of a firing round to
// recycle them.
int SoftwareTriggers::acquire_counter(CounterId* out, bool* available) {
  CounterId id = 0;
  if (!pop_free(&id)) {
    if (!has_retired_.load(std::memory_order_acquire)) {
      *available = false;
      return MPI_SUCCESS;
    }
    {
      std::lock_guard<std::mutex> guard(mutex_);
      recycle_retired();
    }
    if (!pop_free(&id)) {
      *available = false;
      return MPI_SUCCESS;
    }
  }
  // Nothing references a recycled counter: its lists were cleared between
  // rounds, and its epoch's operations all fired or were dropped.
  Counter& c = counters_[id];
  c.value.store(0, std::memory_order_relaxed);
  c.error.store(0, std::memory_order_relaxed);
  c.in_use.store(true, std::memory_order_release);
  *out = id;
  *available = true;
  const uint64_t now = counters_in_use_.fetch_add(1, std::memory_order_relaxed) + 1;
  uint64_t max = counters_max_in_use_.load(std::memory_order_relaxed);
  while (now > max && !counters_max_in_use_.compare_exchange_weak(max, now)) {
  }
  return MPI_SUCCESS;
}

// Never waits for a firing round: the counter stops firing (rounds skip
// counters not in use) and is queued for recycling.
void SoftwareTriggers::release_counter(CounterId id) {
  if (id >= static_cast<CounterId>(count_)) return;
  bool was = true;
  if (!counters_[id].in_use.compare_exchange_strong(was, false, std::memory_order_acq_rel)) return;
  counters_in_use_.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> guard(pool_mutex_);
  retired_.push_back(id);
  has_retired_.store(true, std::memory_order_release);
}

// Counters are acquired and released by the thread that posts on them, so
// check_id needs no lock here. The threshold is checked after the op is
// queued: a round that took the queue before it either saw the counter
// below the threshold (and a later round takes the op) or moved the
// counter before this load, which then sees it and fires here.
int SoftwareTriggers::post(std::unique_ptr<Op> op, CounterId trigger) {
  if (int err = check_id(trigger, "post (trigger)")) return err;
  if (int err = check_id(op->completion, "post (completion)")) return err;
  posted_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t threshold = op->threshold;
  {
    std::lock_guard<std::mutex> guard(incoming_mutex_);
    incoming_.emplace_back(trigger, std::move(op));
    has_incoming_.store(true, std::memory_order_release);
  }
  const uint64_t value = counters_[trigger].value.load(std::memory_order_acquire);
  if (static_cast<int64_t>(value - threshold) >= 0) {  // already reached: fires at once
    std::lock_guard<std::mutex> guard(mutex_);
    fire_from(trigger);
  }
  return MPI_SUCCESS;
}

void SoftwareTriggers::take_incoming() {
  if (!has_incoming_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> guard(incoming_mutex_);
  for (auto& [trigger, op] : incoming_) counters_[trigger].waiting.push_back(std::move(op));
  incoming_.clear();
  has_incoming_.store(false, std::memory_order_relaxed);
}

int SoftwareTriggers::post_write(const Region& region, std::span<const Run> runs,
                                 std::span<const OriginPiece> origin, CounterId trigger,
                                 uint64_t threshold, CounterId completion) {
  std::unique_ptr<Op> op(new (std::nothrow) Op);
  if (op == nullptr) return util::make_error(MPI_ERR_NO_MEM, "out of memory for a triggered write");
  op->kind = Kind::kWrite;
  op->region = region;
  op->runs.assign(runs.begin(), runs.end());
  op->origin.assign(origin.begin(), origin.end());
  op->threshold = threshold;
  op->completion = completion;
  return post(std::move(op), trigger);
}

int SoftwareTriggers::post_accumulate(const Region& region, std::span<const Run> runs,
                                      std::span<const OriginPiece> origin, const AccumulateOp& acc,
                                      CounterId trigger, uint64_t threshold, CounterId completion) {
  std::unique_ptr<Op> op(new (std::nothrow) Op);
  if (op == nullptr)
    return util::make_error(MPI_ERR_NO_MEM, "out of memory for a triggered accumulate");
  op->kind = Kind::kAccumulate;
  op->region = region;
  op->runs.assign(runs.begin(), runs.end());
  op->origin.assign(origin.begin(), origin.end());
  op->acc = acc;
  op->threshold = threshold;
  op->completion = completion;
  return post(std::move(op), trigger);
}

int SoftwareTriggers::post_read(const Region& region, std::span<const Run> runs,
                                std::span<const OriginPiece> dest, CounterId trigger,
                                uint64_t threshold, CounterId completion) {
  std::unique_ptr<Op> op(new (std::nothrow) Op);
  if (op == nullptr) return util::make_error(MPI_ERR_NO_MEM, "out of memory for a triggered read");
  op->kind = Kind::kRead;
  op->region = region;
  op->runs.assign(runs.begin(), runs.end());
  op->origin.assign(dest.begin(), dest.end());
  op->threshold = threshold;
  op->completion = completion;
  return post(std::move(op), trigger);
}

int SoftwareTriggers::post_signal(const Region& region, uint64_t offset, uint64_t value,
                                  CounterId trigger, uint64_t threshold, CounterId completion) {
  std::unique_ptr<Op> op(new (std::nothrow) Op);
  if (op == nullptr)
    return util::make_error(MPI_ERR_NO_MEM, "out of memory for a triggered signal");
  op->kind = Kind::kSignal;
  op->region = region;
  op->offset = offset;
  op->value = value;
  op->threshold = threshold;
  op->completion = completion;
  return post(std::move(op), trigger);
}

int SoftwareTriggers::add_counter(CounterId id, uint64_t value) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (int err = check_id(id, "add_counter")) return err;
  counters_[id].value.fetch_add(value, std::memory_order_acq_rel);
  fire_from(id);
  recycle_retired();
  return MPI_SUCCESS;
}

// Completes the signals whose round was not flushed, unless a round is
// firing now (it flushes them itself).
uint64_t SoftwareTriggers::read_counter(CounterId id) {
  if (id >= static_cast<CounterId>(count_)) return 0;
  if (has_unflushed_.load(std::memory_order_acquire)) {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (lock.owns_lock()) {
      flush_unflushed();
      recycle_retired();
    }
  }
  return counters_[id].value.load(std::memory_order_acquire);
}

int SoftwareTriggers::first_error(CounterId id) {
  if (id >= static_cast<CounterId>(count_)) return MPI_SUCCESS;
  return counters_[id].error.load(std::memory_order_acquire);
}

SoftwareTriggerStats SoftwareTriggers::stats() {
  std::lock_guard<std::mutex> guard(mutex_);
  SoftwareTriggerStats s = stats_;
  s.posted = posted_.load(std::memory_order_relaxed);
  s.counters_in_use = counters_in_use_.load(std::memory_order_relaxed);
  s.counters_max_in_use = counters_max_in_use_.load(std::memory_order_relaxed);
  return s;
}

void SoftwareTriggers::fail(const Op& op, CounterId trigger, int err) {
  ++stats_.failed;
  int expected = 0;
  counters_[op.completion].error.compare_exchange_strong(expected, err);
  expected = 0;
  counters_[trigger].error.compare_exchange_strong(expected, err);
}

int SoftwareTriggers::issue(Op& op, bool* network) {
  ++fired_seq_;
  if (fault_inject_ > 0 && fired_seq_ == static_cast<uint64_t>(fault_inject_))
    return util::make_error(MPI_ERR_OTHER,
                            "triggered %s to rank %d failed: fault injected by "
                            "STMPI_ST_FAULT_INJECT=%d (the %d-th fired operation)",
                            op.kind == Kind::kSignal ? "signal" : "operation", op.region.target,
                            fault_inject_, fault_inject_);
  if (op.region.kind == RegionKind::kNet) *network = true;
  if (op.kind == Kind::kSignal) {
    if (op.region.kind == RegionKind::kMapped) {
      store64(op.region, op.offset, op.value);
      return MPI_SUCCESS;
    }
    // Only the module's own atomics are ordered behind its fence: a signal
    // by active messages first completes the fenced operations.
    if (fenced_ && !(op.region.kind == RegionKind::kNet && op.region.native_atomics))
      if (int err = flush_network(); err != MPI_SUCCESS) return err;
    if (op.region.kind != RegionKind::kNet) {
      store64(op.region, op.offset, op.value);
      return MPI_SUCCESS;
    }
    // Between nodes: a non-fetching add of the difference to the last value
    // this process wrote there, which leaves the word at the value (one
    // writer, only growing), needs no answer from any module (UCX has no
    // non-fetching swap: a replace waited for the target's progress) and no
    // order between two signals of one word. Where the module does not order
    // operations it completes at the round's one flush, and op.value (the
    // difference) lives until then.
    uint64_t& last = signal_last_[SignalWord{op.region.target, op.region.am_window, op.offset}];
    if (op.value <= last) return MPI_SUCCESS;
    const uint64_t delta = op.value - last;
    last = op.value;
    if (op.region.native_atomics && NetRma::ordered()) {
      // Behind a fence: lands after everything issued before it, wants no
      // answer and holds no buffer, so it is complete once issued.
      op.one_way = true;
      return NetRma::add64_after(op.region, op.offset, delta);
    }
    op.value = delta;
    const Run run{op.offset, sizeof(uint64_t)};
    AccumulateOp add;
    add.op = util::OpKind::kSum;
    add.element = util::ElementKind::kUint64;
    add.element_size = sizeof(uint64_t);
    Completion done;
    return accumulate(op.region, std::span<const Run>(&run, 1), add, &op.value, nullptr, &done);
  }
  if (op.kind == Kind::kRead) {
    // A blocking read (the data is in place on return), through a packed
    // buffer when the destination is in pieces.
    char* out = op.origin.size() == 1 ? op.origin[0].addr : nullptr;
    if (out == nullptr) {
      op.packed.resize(pieces_bytes(op.origin));
      out = op.packed.data();
    }
    Completion done;
    if (int err = get(op.region, op.runs, out, &done); err != MPI_SUCCESS) return err;
    if (done.pending.load(std::memory_order_acquire) != 0)
      return util::make_error(MPI_ERR_INTERN,
                              "a triggered read from rank %d did not complete at once",
                              op.region.target);
    if (out == op.packed.data()) unpack_pieces(out, op.origin);
    return done.error;
  }
  const char* in = op.origin.size() == 1 ? op.origin[0].addr : nullptr;
  if (op.origin.size() > 1) {
    // Packed now, when the counter fired: the data the buffer holds now.
    op.packed.resize(pieces_bytes(op.origin));
    pack_pieces(op.origin, op.packed.data());
    in = op.packed.data();
  }
  if (op.kind == Kind::kWrite) return put(op.region, op.runs, in);
  Completion done;
  if (int err = accumulate(op.region, op.runs, op.acc, in, nullptr, &done); err != MPI_SUCCESS)
    return err;
  return done.pending.load(std::memory_order_acquire) == 0
             ? done.error
             : util::make_error(MPI_ERR_INTERN,
                                "a triggered accumulate to rank %d did not complete at once",
                                op.region.target);
}

// Called with mutex_ held. Every round: take the operations whose threshold
// their counter reached (post order), issue them, flush once if any went to
// the network, then count their completions, which may release more. A
// round of signals only (nothing is ordered behind a signal but its
// counter) is not flushed: its signals complete at the next flush, a later
// round's or read_counter's, so the stream does not wait a round trip for
// them.
void SoftwareTriggers::fire_from(CounterId id) {
  work_.assign(1, id);
  run_work();
}

void SoftwareTriggers::completed(const Op& op) {
  ++stats_.fired;
  counters_[op.completion].value.fetch_add(1, std::memory_order_acq_rel);
  if (std::find(work_.begin(), work_.end(), op.completion) == work_.end())
    work_.push_back(op.completion);
}

int SoftwareTriggers::flush_network() {
  fenced_ = false;
  return NetRma::flush(-1);
}

int SoftwareTriggers::order_network(bool* fenced) {
  const int err = NetRma::order_after(-1, fenced);
  fenced_ = fenced_ || *fenced;
  return err;
}

void SoftwareTriggers::count_unflushed(int flush_err) {
  for (std::size_t i = 0; i < unflushed_.size(); ++i) {
    if (flush_err != MPI_SUCCESS) fail(*unflushed_[i], unflushed_trigger_[i], flush_err);
    else completed(*unflushed_[i]);
  }
  unflushed_.clear();
  unflushed_trigger_.clear();
  has_unflushed_.store(false, std::memory_order_release);
}

void SoftwareTriggers::flush_unflushed() {
  while (!unflushed_.empty()) {
    work_.clear();
    count_unflushed(flush_network());
    run_work();
  }
}

void SoftwareTriggers::run_work() {
  while (!work_.empty()) {
    take_incoming();
    ready_.clear();
    ready_trigger_.clear();
    for (CounterId cid : work_) {
      Counter& c = counters_[cid];
      if (!c.in_use.load(std::memory_order_acquire)) continue;  // released: dropped at recycling
      const uint64_t value = c.value.load(std::memory_order_acquire);
      auto keep = c.waiting.begin();
      for (auto it = c.waiting.begin(); it != c.waiting.end(); ++it) {
        if (static_cast<int64_t>(value - (*it)->threshold) >= 0) {
          ready_.push_back(std::move(*it));
          ready_trigger_.push_back(cid);
        } else {
          *keep++ = std::move(*it);
        }
      }
      c.waiting.erase(keep, c.waiting.end());
    }
    work_.clear();
    if (ready_.empty()) break;
    bool network = false, data = false;
    errors_.assign(ready_.size(), MPI_SUCCESS);
    for (std::size_t i = 0; i < ready_.size(); ++i) {
      errors_[i] = issue(*ready_[i], &network);
      if (ready_[i]->kind != Kind::kSignal) data = true;
    }
    if (network && !data) {
      for (std::size_t i = 0; i < ready_.size(); ++i) {
        if (errors_[i] != MPI_SUCCESS) {
          fail(*ready_[i], ready_trigger_[i], errors_[i]);
        } else if (ready_[i]->region.kind == RegionKind::kNet && !ready_[i]->one_way) {
          unflushed_.push_back(std::move(ready_[i]));
          unflushed_trigger_.push_back(ready_trigger_[i]);
        } else {
          completed(*ready_[i]);
        }
      }
      has_unflushed_.store(!unflushed_.empty(), std::memory_order_release);
      continue;
    }
    // What this round releases (its epochs' signals) must land after its
    // network operations: a fence where the module orders operations (no
    // round trip; they complete at the next flush, and the unflushed signals
    // stay so), else a flush, which completes those signals too.
    bool fenced = false;
    int flush_err = MPI_SUCCESS;
    if (network) flush_err = order_network(&fenced);
    else if (!unflushed_.empty()) flush_err = flush_network();
    if (!fenced) count_unflushed(flush_err);
    for (std::size_t i = 0; i < ready_.size(); ++i) {
      const Op& op = *ready_[i];
      const int err = errors_[i] != MPI_SUCCESS ? errors_[i] : flush_err;
      if (err != MPI_SUCCESS) fail(op, ready_trigger_[i], err);
      else completed(op);
    }
  }
  ready_.clear();
}

}  // namespace stmpi::dev::rma::st
