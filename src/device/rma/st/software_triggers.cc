#include "device/rma/st/software_triggers.h"

#include <algorithm>
#include <cstring>
#include <new>

#include <mpi.h>

#include "device/rma/rma.h"
#include "util/error.h"

namespace stmpi::dev::rma::st {

SoftwareTriggers::SoftwareTriggers(int counters, int fault_inject)
    : counters_(new Counter[static_cast<std::size_t>(std::max(counters, 1))]),
      count_(std::max(counters, 1)),
      fault_inject_(fault_inject) {}

SoftwareTriggers::~SoftwareTriggers() = default;

int SoftwareTriggers::check_id(CounterId id, const char* what) const {
  if (id < static_cast<CounterId>(count_) && counters_[id].in_use.load(std::memory_order_acquire))
    return MPI_SUCCESS;
  return util::make_error(MPI_ERR_INTERN, "software trigger engine: %s on counter %u, which is "
                          "not in use (pool of %d)", what, id, count_);
}

int SoftwareTriggers::acquire_counter(CounterId* out, bool* available) {
  std::lock_guard<std::mutex> guard(mutex_);
  for (int i = 0; i < count_; ++i) {
    Counter& c = counters_[i];
    if (c.in_use.load(std::memory_order_relaxed)) continue;
    c.in_use.store(true, std::memory_order_release);
    c.value.store(0, std::memory_order_relaxed);
    c.error.store(0, std::memory_order_relaxed);
    *out = static_cast<CounterId>(i);
    *available = true;
    stats_.counters_max_in_use = std::max(stats_.counters_max_in_use, ++stats_.counters_in_use);
    return MPI_SUCCESS;
  }
  *available = false;
  return MPI_SUCCESS;
}

void SoftwareTriggers::release_counter(CounterId id) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (id >= static_cast<CounterId>(count_) || !counters_[id].in_use.load()) return;
  take_incoming();
  Counter& c = counters_[id];
  c.waiting.clear();  // operations of a broken chain never fire
  c.in_use.store(false, std::memory_order_release);
  --stats_.counters_in_use;
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
                                      std::span<const OriginPiece> origin,
                                      const AccumulateOp& acc, CounterId trigger,
                                      uint64_t threshold, CounterId completion) {
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

int SoftwareTriggers::post_signal(const Region& region, uint64_t offset, uint64_t value,
                                  CounterId trigger, uint64_t threshold, CounterId completion) {
  std::unique_ptr<Op> op(new (std::nothrow) Op);
  if (op == nullptr) return util::make_error(MPI_ERR_NO_MEM, "out of memory for a triggered signal");
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
  return MPI_SUCCESS;
}

uint64_t SoftwareTriggers::read_counter(CounterId id) {
  if (id >= static_cast<CounterId>(count_)) return 0;
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
    store64(op.region, op.offset, op.value);
    return MPI_SUCCESS;
  }
  const char* in = op.origin.size() == 1 ? op.origin[0].addr : nullptr;
  if (op.origin.size() > 1) {
    // Packed now, when the counter fired: the data the buffer holds now.
    uint64_t bytes = 0;
    for (const OriginPiece& p : op.origin) bytes += p.bytes;
    op.packed.resize(bytes);
    char* at = op.packed.data();
    for (const OriginPiece& p : op.origin) {
      std::memcpy(at, p.addr, p.bytes);
      at += p.bytes;
    }
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
// the network, then count their completions, which may release more.
void SoftwareTriggers::fire_from(CounterId id) {
  work_.assign(1, id);
  while (!work_.empty()) {
    take_incoming();
    ready_.clear();
    ready_trigger_.clear();
    for (CounterId cid : work_) {
      Counter& c = counters_[cid];
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
    bool network = false;
    std::vector<int> errors(ready_.size(), MPI_SUCCESS);
    for (std::size_t i = 0; i < ready_.size(); ++i) errors[i] = issue(*ready_[i], &network);
    int flush_err = network ? NetRma::flush(-1) : MPI_SUCCESS;
    for (std::size_t i = 0; i < ready_.size(); ++i) {
      const Op& op = *ready_[i];
      const int err = errors[i] != MPI_SUCCESS ? errors[i] : flush_err;
      if (err != MPI_SUCCESS) {
        fail(op, ready_trigger_[i], err);
        continue;
      }
      ++stats_.fired;
      counters_[op.completion].value.fetch_add(1, std::memory_order_acq_rel);
      if (std::find(work_.begin(), work_.end(), op.completion) == work_.end())
        work_.push_back(op.completion);
    }
  }
  ready_.clear();
}

}  // namespace stmpi::dev::rma::st
