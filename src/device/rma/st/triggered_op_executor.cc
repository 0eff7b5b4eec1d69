#include "device/rma/st/triggered_op_executor.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include <mpi.h>

#include "device/progress.h"
#include "device/rma/st/settings.h"
#include "stream/host_wait.h"
#include "util/backoff.h"
#include "util/error.h"

namespace stmpi::dev::rma::st {
namespace {

using CounterId = TriggeredOps::CounterId;

// Triggered-op slots of the process (STMPI_ST_TRIGGERED_OPS), shared by
// every window. Taken and given back by the MPI calls only.
std::atomic<uint64_t> g_ops_in_use{0};

bool wait_reached(uint64_t word, uint64_t target) {
  return static_cast<int64_t>(word - target) >= 0;
}
std::atomic<uint64_t> g_counters_in_use{0};
std::atomic<uint64_t> g_counters_max{0};

// Every executor of the process, for reclaim_process. Executors are used by
// MPI calls only (under the global lock with MPI_THREAD_MULTIPLE).
std::mutex g_executors_mutex;
std::vector<TriggeredOpExecutor*> g_executors;

// A throttle stall: counted once when it starts, timed until it ends; each
// step progresses and yields so the epochs holding the resources can finish.
class Stall {
 public:
  explicit Stall(TriggerStats& stats) : stats_(stats) {}
  ~Stall() {
    if (started_ != 0)
      stats_.throttle_ns += static_cast<uint64_t>(stream::monotonic_ns() - started_);
  }
  // The wait is over and got what it wanted: `reclaimed` epochs were freed
  // by reclaim() calls during it, `others_held` whether earlier epochs of
  // the window still hold resources.
  void satisfied(std::size_t reclaimed, bool others_held) {
    if (started_ == 0) return;
    stats_.throttle_reclaimed += reclaimed;
    if (others_held) ++stats_.throttle_overlapped;
  }
  void step() {
    if (started_ == 0) {
      started_ = stream::monotonic_ns();
      ++stats_.throttle_stalls;
    }
    progress();
    util::yield_now();
  }
  int64_t elapsed_ns() const { return started_ == 0 ? 0 : stream::monotonic_ns() - started_; }
  // STMPI_ST_WAIT_TIMEOUT bounds every throttle wait as it bounds the
  // stream's waits: true once the stall lasted that long.
  bool expired() const {
    const int limit_s = settings().wait_timeout_s;
    return limit_s > 0 && elapsed_ns() > static_cast<int64_t>(limit_s) * 1000000000ll;
  }

 private:
  TriggerStats& stats_;
  int64_t started_ = 0;
};

void counters_taken(TriggerStats& stats, int n) {
  stats.counters_in_use += static_cast<uint64_t>(n);
  if (stats.counters_in_use > stats.counters_max_in_use)
    stats.counters_max_in_use = stats.counters_in_use;
  const uint64_t now =
      g_counters_in_use.fetch_add(static_cast<uint64_t>(n)) + static_cast<uint64_t>(n);
  uint64_t max = g_counters_max.load();
  while (now > max && !g_counters_max.compare_exchange_weak(max, now)) {
  }
}

}  // namespace

void process_counters(uint64_t* in_use, uint64_t* max_in_use) {
  *in_use = g_counters_in_use.load();
  *max_in_use = g_counters_max.load();
}

const char* throttle_policy_name(ThrottlePolicy policy) {
  switch (policy) {
    case ThrottlePolicy::kApplication: return "application";
    case ThrottlePolicy::kStatic: return "static";
    case ThrottlePolicy::kAdaptive: return "adaptive";
  }
  return "unknown";
}

ThrottlePolicy throttle_policy_setting() {
  const std::string& t = settings().throttle;
  if (t == "application") return ThrottlePolicy::kApplication;
  if (t == "static") return ThrottlePolicy::kStatic;
  return ThrottlePolicy::kAdaptive;
}

// What an epoch holds until its operations completed. An exposure epoch
// has one counter (trigger == completion).
struct TriggeredOpExecutor::Epoch {
  CounterId trigger = 0;
  CounterId completion = 0;
  int counters = 0;
  uint64_t done_at = 0;  // completion counter's final value
  uint32_t ops = 0;      // slots held
  uint32_t writes = 0;   // access: data operations posted (reads included)
  uint32_t reads = 0;    // access: reads (MPI_Get) among them
  bool exposure = false;
};

// Arguments of one host function; freed by reclaim() once `done`.
struct TriggeredOpExecutor::HostCall {
  TriggeredOpExecutor* owner = nullptr;
  bool is_wait = false;
  bool exposure = false;
  std::vector<stream::SignalWrite> writes;
  std::vector<stream::SignalWait> waits;
  std::vector<int> peers;
  bool has_counter = false;
  CounterId counter = 0;
  std::atomic<bool> done{false};
};

TriggeredOpExecutor::TriggeredOpExecutor(RemoteView view, SignalWords words, TriggeredOps& nic,
                                         ThrottlePolicy policy)
    : view_(std::move(view)), words_(std::move(words)), nic_(nic), policy_(policy) {
  const std::lock_guard<std::mutex> guard(g_executors_mutex);
  g_executors.push_back(this);
}

TriggeredOpExecutor::~TriggeredOpExecutor() {
  {
    const std::lock_guard<std::mutex> guard(g_executors_mutex);
    std::erase(g_executors, this);
  }
  // After drain(): every host function ran. Epochs whose chain broke never
  // complete; their counters are released anyway (queued operations dropped).
  if (open_ != nullptr) release(*open_);
  for (auto& e : outstanding_) release(*e);
}

int TriggeredOpExecutor::attach_stream(stream::Stream&) { return MPI_SUCCESS; }

void TriggeredOpExecutor::note_error(int err) {
  int expected = 0;
  error_.compare_exchange_strong(expected, err);
  broken_.store(true, std::memory_order_release);
}

int TriggeredOpExecutor::take_error() { return error_.exchange(0); }

bool TriggeredOpExecutor::epoch_done(const Epoch& e) {
  if (int err = nic_.first_error(e.completion); err != MPI_SUCCESS) {
    note_error(err);
    return true;
  }
  if (int err = nic_.first_error(e.trigger); err != MPI_SUCCESS) {
    note_error(err);
    return true;
  }
  return wait_reached(nic_.read_counter(e.completion), e.done_at);
}

void TriggeredOpExecutor::release(Epoch& e) {
  uint64_t value = nic_.read_counter(e.completion);
  if (e.exposure) value = value > 0 ? value - 1 : 0;  // the stream's own add
  const uint64_t fired = value < e.ops ? value : e.ops;
  stats_.fired += fired;
  if (nic_.mode() == TriggerMode::kSoftware) stats_.software_fired += fired;
  nic_.release_counter(e.trigger);
  if (e.counters == 2) nic_.release_counter(e.completion);
  stats_.counters_in_use -= static_cast<uint64_t>(e.counters);
  g_counters_in_use.fetch_sub(static_cast<uint64_t>(e.counters));
  g_ops_in_use.fetch_sub(e.ops, std::memory_order_relaxed);
}

std::size_t TriggeredOpExecutor::reclaim() {
  while (!calls_.empty() && calls_.front()->done.load(std::memory_order_acquire))
    calls_.pop_front();
  const std::size_t before = outstanding_.size();
  if (policy_ == ThrottlePolicy::kStatic) {
    for (auto& e : outstanding_)
      if (!epoch_done(*e)) return 0;
    for (auto& e : outstanding_) release(*e);
    outstanding_.clear();
    return before;
  }
  for (auto it = outstanding_.begin(); it != outstanding_.end();) {
    if (epoch_done(**it)) {
      release(**it);
      it = outstanding_.erase(it);
    } else {
      ++it;
    }
  }
  return before - outstanding_.size();
}

std::size_t TriggeredOpExecutor::reclaim_process(bool* held) {
  std::size_t freed = reclaim();
  *held = !outstanding_.empty();
  const std::lock_guard<std::mutex> guard(g_executors_mutex);
  for (TriggeredOpExecutor* other : g_executors) {
    // Only executors drawing on this pool: their finished epochs free what
    // this one waits for (a process has one pool; tests build several).
    if (other == this || &other->nic_ != &nic_) continue;
    freed += other->reclaim();
    if (!other->outstanding_.empty()) *held = true;
  }
  return freed;
}

// Takes `counters` counters (into open_ or the caller's epoch, see below)
// and `ops` slots, throttling by the policy when the pool is short.
int TriggeredOpExecutor::reserve(uint32_t ops, const char* what) {
  const Settings& s = settings();
  const auto budget = static_cast<uint64_t>(s.triggered_ops);
  auto fits = [&] { return g_ops_in_use.load(std::memory_order_relaxed) + ops <= budget; };
  Stall stall(stats_);
  std::size_t reclaimed = 0;
  for (;;) {
    bool held = false;
    reclaimed += reclaim_process(&held);
    if (broken_.load(std::memory_order_acquire)) {
      const int err = take_error();
      return err != MPI_SUCCESS ? err
                                : util::make_error(MPI_ERR_OTHER,
                                                   "an earlier triggered operation of this window "
                                                   "failed (reported before)");
    }
    if (fits()) break;
    if (policy_ == ThrottlePolicy::kApplication || !held || ops > budget)
      return util::make_error(
          MPI_ERR_OTHER,
          "%s needs %u triggered-operation slots, %llu of STMPI_ST_TRIGGERED_OPS=%d are in use "
          "%s(STMPI_ST_THROTTLE=%s)",
          what, ops, static_cast<unsigned long long>(g_ops_in_use.load()), s.triggered_ops,
          !held ? "and no earlier epoch of any window holds any " : "",
          throttle_policy_name(policy_));
    stall.step();
    if (stall.expired())
      return util::make_error(MPI_ERR_OTHER,
                              "%s waited %d s (STMPI_ST_WAIT_TIMEOUT) for triggered-operation "
                              "slots held by %zu earlier epochs that did not complete",
                              what, s.wait_timeout_s, outstanding_.size());
  }
  stall.satisfied(reclaimed, !outstanding_.empty());
  g_ops_in_use.fetch_add(ops, std::memory_order_relaxed);
  return MPI_SUCCESS;
}

int TriggeredOpExecutor::counter_wait_expired(const char* epoch, const char* wanted) const {
  return util::make_error(MPI_ERR_OTHER,
                          "a stream %s epoch between nodes waited %d s (STMPI_ST_WAIT_TIMEOUT) "
                          "for %s (STMPI_ST_COUNTERS=%d, STMPI_ST_THROTTLE=%s) held by %zu "
                          "earlier epochs of this window that did not complete",
                          epoch, settings().wait_timeout_s, wanted, settings().counters,
                          throttle_policy_name(policy_), outstanding_.size());
}

int TriggeredOpExecutor::open_access() {
  auto e = std::make_unique<Epoch>();
  CounterId ids[2];
  int taken = 0;
  {
    Stall stall(stats_);
    std::size_t reclaimed = 0;
    while (taken < 2) {
      bool got = false;
      if (int err = nic_.acquire_counter(&ids[taken], &got); err != MPI_SUCCESS) break;
      if (got) {
        ++taken;
        continue;
      }
      bool held = false;
      if (const std::size_t freed = reclaim_process(&held); freed != 0) {  // try again
        reclaimed += freed;
        continue;
      }
      if (policy_ == ThrottlePolicy::kApplication || !held ||
          broken_.load(std::memory_order_acquire)) {
        for (int i = 0; i < taken; ++i) nic_.release_counter(ids[i]);
        if (broken_.load() && error_.load() != MPI_SUCCESS) return take_error();
        return util::make_error(MPI_ERR_OTHER,
                                "a stream access epoch between nodes needs 2 trigger counters and "
                                "STMPI_ST_COUNTERS=%d are all in use %s(STMPI_ST_THROTTLE=%s)",
                                settings().counters, !held ? "by open epochs " : "",
                                throttle_policy_name(policy_));
      }
      stall.step();
      if (stall.expired()) {
        for (int i = 0; i < taken; ++i) nic_.release_counter(ids[i]);
        return counter_wait_expired("access", "2 trigger counters");
      }
    }
    stall.satisfied(reclaimed, !outstanding_.empty());
  }
  e->trigger = ids[0];
  e->completion = ids[1];
  e->counters = 2;
  counters_taken(stats_, 2);
  open_ = std::move(e);
  return MPI_SUCCESS;
}

int TriggeredOpExecutor::record(AccessPlan& plan, std::size_t index) {
  const DeferredOp& op = plan.ops[index];
  if (op.region.kind != RegionKind::kNet)
    return util::make_error(MPI_ERR_RMA_FLAVOR,
                            "the window memory of rank %d is neither mapped here nor registered "
                            "with the network module, so a stream cannot reach it",
                            op.target);
  if (open_ == nullptr)
    if (int err = open_access(); err != MPI_SUCCESS) return err;
  if (int err = reserve(1, "a put, get or accumulate of a stream epoch"); err != MPI_SUCCESS)
    return err;
  const std::span<const Run> runs(plan.runs.data() + op.first_run, op.run_count);
  const std::span<const OriginPiece> pieces(plan.pieces.data() + op.first_piece, op.piece_count);
  // A get is read when the epoch's trigger fires (after every target's
  // exposure signal), on the host, complete when the trigger call returns
  // (triggered_ops.h): the data is there in stream order after the complete.
  int err = MPI_SUCCESS;
  switch (op.kind) {
    case DeferredKind::kPut:
      err = nic_.post_write(op.region, runs, pieces, open_->trigger, 1, open_->completion);
      break;
    case DeferredKind::kGet:
      err = nic_.post_read(op.region, runs, pieces, open_->trigger, 1, open_->completion);
      break;
    case DeferredKind::kAccumulate:
      err = nic_.post_accumulate(op.region, runs, pieces, op.acc, open_->trigger, 1,
                                 open_->completion);
      break;
  }
  if (err != MPI_SUCCESS) {
    g_ops_in_use.fetch_sub(1, std::memory_order_relaxed);
    return err;
  }
  if (op.kind == DeferredKind::kGet) ++open_->reads;
  ++open_->ops;
  ++open_->writes;
  ++stats_.posted;
  return MPI_SUCCESS;
}

TriggeredOpExecutor::HostCall* TriggeredOpExecutor::new_call() {
  calls_.push_back(std::make_unique<HostCall>());
  HostCall* call = calls_.back().get();
  call->owner = this;
  return call;
}

// Host function of a post (local stores, then the exposure trigger) or of
// a checked wait.
void TriggeredOpExecutor::run_call(void* arg) {
  HostCall& call = *static_cast<HostCall*>(arg);
  TriggeredOpExecutor& ex = *call.owner;
  if (!call.is_wait) {
    for (const stream::SignalWrite& w : call.writes)
      std::atomic_ref<uint64_t>(*w.addr).store(w.value, std::memory_order_release);
    if (call.has_counter && !ex.broken_.load(std::memory_order_acquire))
      if (int err = ex.nic_.add_counter(call.counter, 1); err != MPI_SUCCESS) ex.note_error(err);
    call.done.store(true, std::memory_order_release);
    return;
  }
  const int timeout_s = settings().wait_timeout_s;
  const int64_t start = stream::monotonic_ns();
  for (std::size_t i = 0; i < call.waits.size(); ++i) {
    const stream::SignalWait& w = call.waits[i];
    stream::PollBackoff backoff(50, 200);
    uint64_t polls = 0;
    while (!wait_reached(*w.addr, w.value)) {
      if (ex.broken_.load(std::memory_order_acquire)) {
        call.done.store(true, std::memory_order_release);
        return;  // the window already failed: do not wait for what cannot come
      }
      if (timeout_s > 0 && (++polls & 255) == 0 &&
          stream::monotonic_ns() - start > static_cast<int64_t>(timeout_s) * 1000000000ll) {
        const std::string text = ex.stall_text(call, i);
        ex.note_error(util::make_error(MPI_ERR_OTHER, "%s", text.c_str()));
        call.done.store(true, std::memory_order_release);
        return;
      }
      backoff.pause();
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  call.done.store(true, std::memory_order_release);
}

std::string TriggeredOpExecutor::stall_text(const HostCall& call, std::size_t index) {
  const stream::SignalWait& w = call.waits[index];
  char text[512];
  std::snprintf(text, sizeof text,
                "stream epoch %llu stalled: rank %d waited %d s (STMPI_ST_WAIT_TIMEOUT) for the "
                "%s signal of rank %d (word holds %llu, expected >= %llu): rank %d's %s "
                "counter did not fire it (a failed or missing triggered operation, or the peer "
                "never %s)",
                static_cast<unsigned long long>(w.value), view_.rank, settings().wait_timeout_s,
                call.exposure ? "exposure" : "completion", call.peers[index],
                static_cast<unsigned long long>(*w.addr), static_cast<unsigned long long>(w.value),
                call.peers[index], call.exposure ? "exposure (post)" : "completion",
                call.exposure ? "posted" : "completed the epoch");
  return text;
}

int TriggeredOpExecutor::checked_wait(std::span<const stream::SignalWait> waits,
                                      std::span<const int> peers, bool exposure,
                                      stream::Stream& stream, LaunchTally* tally) {
  if (waits.empty()) return MPI_SUCCESS;
  reclaim();
  HostCall* call = new_call();
  call->is_wait = true;
  call->exposure = exposure;
  call->waits.assign(waits.begin(), waits.end());
  call->peers.assign(peers.begin(), peers.end());
  if (int err = stream.launch(run_call, call); err != MPI_SUCCESS) {
    calls_.pop_back();
    return err;
  }
  ++tally->wait;
  return MPI_SUCCESS;
}

int TriggeredOpExecutor::post_with(const ExposurePlan& plan,
                                   std::span<const stream::SignalWrite> local,
                                   stream::Stream& stream, LaunchTally* tally) {
  uint32_t remote = 0;
  for (int origin : plan.origins) remote += is_remote(origin) ? 1 : 0;
  auto e = std::make_unique<Epoch>();
  e->exposure = true;
  if (remote != 0) {
    bool got = false;
    {
      Stall stall(stats_);
      std::size_t reclaimed = 0;
      for (;;) {
        if (int err = nic_.acquire_counter(&e->trigger, &got); err != MPI_SUCCESS) return err;
        if (got) {
          stall.satisfied(reclaimed, !outstanding_.empty());
          break;
        }
        bool held = false;
        if (const std::size_t freed = reclaim_process(&held); freed != 0) {  // try again
          reclaimed += freed;
          continue;
        }
        if (policy_ == ThrottlePolicy::kApplication || !held ||
            broken_.load(std::memory_order_acquire))
          return util::make_error(MPI_ERR_OTHER,
                                  "a stream exposure epoch between nodes needs a trigger counter "
                                  "and STMPI_ST_COUNTERS=%d are all in use (STMPI_ST_THROTTLE=%s)",
                                  settings().counters, throttle_policy_name(policy_));
        stall.step();
        if (stall.expired()) return counter_wait_expired("exposure", "a trigger counter");
      }
    }
    e->completion = e->trigger;
    e->counters = 1;
    if (int err = reserve(remote, "a stream exposure epoch"); err != MPI_SUCCESS) {
      nic_.release_counter(e->trigger);
      return err;
    }
    e->ops = remote;
    e->done_at = 1 + remote;
    counters_taken(stats_, 1);
    for (std::size_t i = 0; i < plan.origins.size(); ++i) {
      const int origin = plan.origins[i];
      if (!is_remote(origin)) continue;
      const Region& control = view_.control[static_cast<std::size_t>(origin)];
      if (int err = nic_.post_signal(control, view_.post0 + 8 * static_cast<uint64_t>(view_.rank),
                                     plan.epochs[i], e->trigger, 1, e->trigger);
          err != MPI_SUCCESS) {
        release(*e);
        return err;
      }
      ++stats_.posted;
    }
  }
  HostCall* call = new_call();
  call->writes.assign(local.begin(), local.end());
  call->has_counter = remote != 0;
  call->counter = e->trigger;
  if (int err = stream.launch(run_call, call); err != MPI_SUCCESS) {
    calls_.pop_back();
    if (remote != 0) release(*e);
    return err;
  }
  ++tally->signal;
  if (remote != 0) outstanding_.push_back(std::move(e));
  return MPI_SUCCESS;
}

namespace {

// AccessPlan::trigger_fn: called by the host function that moves the
// epoch's data, after the local part.
void trigger_plan(AccessPlan& plan) {
  auto* nic = static_cast<TriggeredOps*>(plan.trigger_owner);
  if (plan.trigger_broken != nullptr && plan.trigger_broken->load(std::memory_order_acquire))
    return;
  if (int err = nic->add_counter(plan.trigger_counter, 1); err != MPI_SUCCESS) {
    int expected = 0;
    plan.failure.compare_exchange_strong(expected, err);
  }
}

}  // namespace

int TriggeredOpExecutor::arm(AccessPlan& plan) {
  plan.trigger_fn = nullptr;
  uint32_t remote = 0;
  for (int target : plan.targets) remote += is_remote(target) ? 1 : 0;
  if (remote == 0) return MPI_SUCCESS;
  if (open_ == nullptr)
    if (int err = open_access(); err != MPI_SUCCESS) return err;
  if (int err = reserve(remote, "the completion signals of a stream epoch"); err != MPI_SUCCESS) {
    // Nothing of the epoch fired (its trigger never moves): drop it.
    release(*open_);
    open_.reset();
    return err;
  }
  Epoch& e = *open_;
  const bool chained = e.writes != 0;
  uint32_t posted = 0;
  for (std::size_t i = 0; i < plan.targets.size(); ++i) {
    const int target = plan.targets[i];
    if (!is_remote(target)) continue;
    const Region& control = view_.control[static_cast<std::size_t>(target)];
    const int err = nic_.post_signal(
        control, view_.complete0 + 8 * static_cast<uint64_t>(view_.rank), plan.epochs[i],
        chained ? e.completion : e.trigger, chained ? e.writes : 1, e.completion);
    if (err != MPI_SUCCESS) {
      g_ops_in_use.fetch_sub(remote - posted, std::memory_order_relaxed);
      return err;
    }
    ++posted;
    ++e.ops;
    ++stats_.posted;
  }
  e.done_at = e.ops;
  plan.trigger_fn = trigger_plan;
  plan.trigger_owner = &nic_;
  plan.trigger_counter = e.trigger;
  plan.trigger_broken = &broken_;
  // Reads run in the trigger's host call: a stream that bumped a doorbell
  // instead would go on before their data is in place.
  plan.doorbell = e.reads == 0 ? nic_.doorbell(e.trigger) : nullptr;
  outstanding_.push_back(std::move(open_));
  ++access_epochs_;
  return MPI_SUCCESS;
}

int TriggeredOpExecutor::post(const ExposurePlan& plan, stream::Stream& stream,
                              LaunchTally* tally) {
  return post_with(plan, {}, stream, tally);
}

namespace {

void run_trigger_only(void* arg) {
  AccessPlan& plan = *static_cast<AccessPlan*>(arg);
  if (plan.trigger_fn != nullptr) plan.trigger_fn(plan);
}

}  // namespace

int TriggeredOpExecutor::complete(AccessPlan& plan, stream::Stream& stream, uint64_t* retire_word,
                                  LaunchTally* tally) {
  std::vector<stream::SignalWait> waits;
  for (std::size_t i = 0; i < plan.targets.size(); ++i)
    waits.push_back({words_.post(view_.rank, plan.targets[i]), plan.epochs[i]});
  if (int err = checked_wait(waits, plan.targets, true, stream, tally); err != MPI_SUCCESS)
    return err;
  if (int err = arm(plan); err != MPI_SUCCESS) return err;
  if (plan.trigger_fn != nullptr) {
    if (int err = stream.launch(run_trigger_only, &plan); err != MPI_SUCCESS) return err;
    ++tally->copy;
  }
  if (int err = stream.write_value(retire_word, plan.seq); err != MPI_SUCCESS) return err;
  ++tally->signal;
  return MPI_SUCCESS;
}

int TriggeredOpExecutor::wait(const ExposurePlan& plan, stream::Stream& stream,
                              LaunchTally* tally) {
  std::vector<stream::SignalWait> waits;
  for (std::size_t i = 0; i < plan.origins.size(); ++i)
    waits.push_back({words_.complete(view_.rank, plan.origins[i]), plan.epochs[i]});
  return checked_wait(waits, plan.origins, false, stream, tally);
}

TriggerStats TriggeredOpExecutor::stats() {
  reclaim();
  return stats_;
}

}  // namespace stmpi::dev::rma::st
