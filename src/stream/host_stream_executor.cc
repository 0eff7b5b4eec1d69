#include "stream/host_stream_executor.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include <cstring>
#include <system_error>

#include <mpi.h>

#include "stream/host_wait.h"
#include "util/backoff.h"
#include "util/error.h"

namespace stmpi::stream {

namespace detail {
thread_local const HostStreamExecutor* tl_running = nullptr;
}  // namespace detail

namespace {

bool words_set(std::span<const SignalWait> waits, Cmp cmp, uint64_t bias = 0) {
  for (const SignalWait& wait : waits)
    if (!wait_satisfied(__atomic_load_n(wait.addr, __ATOMIC_ACQUIRE), wait.value + bias, cmp))
      return false;
  return true;
}

// Marks this thread as running `executor`'s operations (nested: a user
// function run by a synchronizing thread may synchronize another stream).
class RunningScope {
 public:
  explicit RunningScope(const HostStreamExecutor* executor) : saved_(detail::tl_running) {
    detail::tl_running = executor;
  }
  ~RunningScope() { detail::tl_running = saved_; }
  RunningScope(const RunningScope&) = delete;
  RunningScope& operator=(const RunningScope&) = delete;

 private:
  const HostStreamExecutor* saved_;
};

}  // namespace

bool HostStreamExecutor::on_executor_thread() const {
  return detail::tl_running == this || std::this_thread::get_id() == thread_id_;
}

void HostStreamExecutor::stop() {
  stop_.store(true, std::memory_order_seq_cst);
  if (!thread_.joinable()) return;
  wake_if_sleeping();
  thread_.join();
}

int HostStreamExecutor::start(int spin_us, int poll_sleep_us, bool caller_runs, bool inline_ops,
                              int yield_us, int polls_per_yield) {
  spin_us_ = spin_us > 0 ? spin_us : 0;
  yield_us_ = yield_us;
  polls_per_yield_ = polls_per_yield;
  poll_sleep_us_ = poll_sleep_us;
  spin_ns_ = static_cast<int64_t>(spin_us_) * 1000;
  caller_runs_ = caller_runs;
  inline_ops_enabled_ = inline_ops;
  // The thread starts with every signal blocked, so the application's
  // handlers run on its own threads.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  int error = MPI_SUCCESS;
  try {
    thread_ = std::thread([this] { run(); });
    thread_id_ = thread_.get_id();
    native_thread_ = thread_.native_handle();
  } catch (const std::system_error& e) {
    error = util::make_error(MPI_ERR_OTHER, "cannot start a host stream thread: %s", e.what());
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return error;
}

int HostStreamExecutor::enqueue(HostOp& op) {
  if (stop_.load(std::memory_order_relaxed)) [[unlikely]] {
    op.release();
    return util::make_error(MPI_ERR_OTHER, "enqueue on a host stream that was freed");
  }
  if (!queue_.push(op)) [[unlikely]] {
    op.release();
    return util::make_error(MPI_ERR_NO_MEM, "out of memory enqueuing on a host stream");
  }
  // A thread other than the executor holds the token: it wakes the executor
  // when it lets go and work is left (release_other_token), so no wake here.
  if (token_.load(std::memory_order_seq_cst) != kOtherThread) wake_if_sleeping();
  return MPI_SUCCESS;
}

void HostStreamExecutor::wake_if_sleeping() {
  // Pairs with wait_for_work: either this load sees the executor's
  // sleeping_ = 1, or the executor's re-check sees the published operation
  // (or the released token).
  if (sleeping_.load(std::memory_order_seq_cst) != 0 &&
      sleeping_.exchange(0, std::memory_order_seq_cst) != 0) {
    wakeups_.fetch_add(1, std::memory_order_relaxed);
    futex_wake(&sleeping_, 1);
  }
}

void HostStreamExecutor::release_other_token() {
  token_.store(kFree, std::memory_order_seq_cst);
  if (pending() || stop_.load(std::memory_order_seq_cst)) wake_if_sleeping();
}

template <class More>
uint64_t HostStreamExecutor::run_queued(More&& more, bool yield_to_callers,
                                        std::atomic<uint64_t>* ops,
                                        std::atomic<uint64_t>* batches) {
  RunningScope scope(this);
  uint64_t ran = 0;
  while (more() && queue_.has_work()) {
    if (yield_to_callers && callers_waiting_.load(std::memory_order_relaxed) != 0) break;
    HostOp& op = queue_.front();
    if (!execute(op, yield_to_callers)) break;
    queue_.pop();
    // Counted before the operation is published as executed, so a thread
    // that synchronized sees every count of what it waited for.
    bump_under_token(*ops);
    if (ran == 0 && batches != nullptr) bump_under_token(*batches);
    // Release: the token's seq_cst release orders it for the next holder,
    // and a stale value read elsewhere only looks like more pending work.
    executed_.store(queue_.popped(), std::memory_order_release);
    ++ran;
  }
  return ran;
}

int HostStreamExecutor::synchronize() {
  const uint64_t target = queue_.published();
  if (static_cast<int64_t>(executed() - target) >= 0) return MPI_SUCCESS;
  sync_waits_.fetch_add(1, std::memory_order_relaxed);
  auto reached = [&] { return static_cast<int64_t>(executed() - target) >= 0; };
  if (!caller_runs_) return wait_for_executor();
  callers_waiting_.fetch_add(1, std::memory_order_seq_cst);
  // Waiting for this stream's own thread to let go of the token (it finishes
  // the user function it runs): that thread needs a CPU, perhaps this one,
  // so this polls as the stream's thread does, not as a wait for a peer.
  PollBackoff backoff(spin_us_, poll_sleep_us_, yield_us_, polls_per_yield_);
  while (!reached()) {
    if (try_take_token(kOtherThread)) {
      if (!reached()) {
        bump_under_token(takeovers_);
        (void)run_queued([&] { return !reached(); }, /*yield_to_callers=*/false, &caller_ops_,
                         nullptr);
      }
      token_.store(kFree, std::memory_order_seq_cst);
      continue;
    }
    // The executor thread finishes its current operation and lets go, or
    // another synchronizing thread runs the stream.
    backoff.pause();
  }
  callers_waiting_.fetch_sub(1, std::memory_order_seq_cst);
  if (pending() || stop_.load(std::memory_order_seq_cst)) wake_if_sleeping();
  return MPI_SUCCESS;
}

int HostStreamExecutor::wait_for_executor() {
  // A fence the executor thread signals; this thread spins, then sleeps.
  std::atomic<uint32_t> done{0};
  HostOp fence;
  fence.kind = HostOpKind::kFence;
  fence.payload.fence = &done;
  if (int err = enqueue(fence); err != MPI_SUCCESS) return err;
  const int64_t spin_until = monotonic_ns() + spin_ns_;
  while (done.load(std::memory_order_acquire) == 0 && monotonic_ns() < spin_until) {
    for (int i = 0; i < 16; ++i) cpu_relax();
  }
  for (;;) {
    uint32_t state = done.load(std::memory_order_acquire);
    if (state == 1) break;
    if (state == 0 && !done.compare_exchange_strong(state, 2, std::memory_order_acq_rel)) continue;
    futex_wait(&done, 2);
  }
  return MPI_SUCCESS;
}

HostStreamCounters HostStreamExecutor::counters() const {
  HostStreamCounters c;
  c.enqueued = queue_.published();
  c.executor_ops = executor_ops_.load(std::memory_order_relaxed);
  c.caller_ops = caller_ops_.load(std::memory_order_relaxed);
  c.inline_ops = inline_ops_.load(std::memory_order_relaxed);
  c.inline_waits = inline_waits_.load(std::memory_order_relaxed);
  c.handoffs = handoffs_.load(std::memory_order_relaxed);
  c.takeovers = takeovers_.load(std::memory_order_relaxed);
  c.progress_ops = progress_ops_.load(std::memory_order_relaxed);
  c.wakeups = wakeups_.load(std::memory_order_relaxed);
  c.sync_waits = sync_waits_.load(std::memory_order_relaxed);
  return c;
}

int64_t HostStreamExecutor::thread_cpu_ns() const {
  if (!thread_.joinable()) return -1;
  clockid_t clock;
  if (pthread_getcpuclockid(native_thread_, &clock) != 0) return -1;
  timespec used;
  if (clock_gettime(clock, &used) != 0) return -1;
  return static_cast<int64_t>(used.tv_sec) * 1'000'000'000 + used.tv_nsec;
}

void HostStreamExecutor::run() {
  pthread_setname_np(pthread_self(), "stmpi-stream");
  // Poll sleeps of a few microseconds should last about that long, not the
  // default 50 us timer slack.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  while (wait_for_work()) {
    if (!try_take_token(kExecutorThread)) continue;
    (void)run_queued([] { return true; }, /*yield_to_callers=*/true, &executor_ops_, &handoffs_);
    token_.store(kFree, std::memory_order_seq_cst);
  }
}

bool HostStreamExecutor::wait_for_work() {
  // Work the executor may take: queued, token free, no synchronizing thread
  // asking for it.
  auto may_run = [&] {
    return pending() && token_.load(std::memory_order_seq_cst) == kFree &&
           callers_waiting_.load(std::memory_order_seq_cst) == 0;
  };
  auto finished = [&] {
    return stop_.load(std::memory_order_seq_cst) && !pending() &&
           token_.load(std::memory_order_seq_cst) == kFree;
  };
  if (may_run()) [[likely]]
    return true;
  const int64_t spin_until = monotonic_ns() + spin_ns_;
  for (;;) {
    if (may_run()) return true;
    if (finished()) return false;
    if (stop_.load(std::memory_order_acquire) && pending() &&
        token_.load(std::memory_order_acquire) == kFree) {
      return true;  // draining at stop: run even while callers wait
    }
    if (monotonic_ns() < spin_until) {
      for (int i = 0; i < 16; ++i) cpu_relax();
      continue;
    }
    sleeping_.store(1, std::memory_order_seq_cst);
    if (!may_run() && !stop_.load(std::memory_order_seq_cst)) {
      futex_wait(&sleeping_, 1);
    } else if (stop_.load(std::memory_order_seq_cst) && !finished()) {
      // Stop requested while a caller holds the token: poll until it lets go.
      sleeping_.store(0, std::memory_order_relaxed);
      sched_yield();
      continue;
    }
    sleeping_.store(0, std::memory_order_relaxed);
  }
}

void HostStreamExecutor::run_epoch_body(const HostOp& op) {
  const HostOp::EpochRefs& step = op.payload.epoch;
  for (uint32_t i = 0; i < step.copy_count; ++i)
    if (step.copies[i].bytes != 0)
      std::memcpy(step.copies[i].dst, step.copies[i].src, step.copies[i].bytes);
  // The last write may free the arrays (EpochStep): read nothing after it.
  const SignalWrite* writes = step.writes;
  const uint32_t writes_left = step.write_count;
  for (uint32_t i = 0; i < writes_left; ++i)
    __atomic_store_n(writes[i].addr, writes[i].value, __ATOMIC_RELEASE);
}

uint64_t HostStreamExecutor::run_ready() {
  if (!pending() || !try_take_token(kOtherThread)) return 0;
  uint64_t ran = 0;
  while (!stop_.load(std::memory_order_relaxed) && queue_.has_work()) {
    HostOp& op = queue_.front();
    if (op.kind == HostOpKind::kUser) break;
    if (op.kind == HostOpKind::kWait) {
      if (!words_set(op.entries<SignalWait>(), op.cmp)) break;
    } else if (op.kind == HostOpKind::kEpoch) {
      const HostOp::EpochRefs& step = op.payload.epoch;
      if (!words_set({step.waits, step.wait_count}, op.cmp)) break;
      run_epoch_body(op);
    } else if (op.kind == HostOpKind::kProgram) {
      if (!run_program(op, /*yield_to_callers=*/false, /*poll_only=*/true)) break;
    } else {
      (void)execute(op, /*yield_to_callers=*/false);  // a signal, copy or fence: never waits
    }
    queue_.pop();
    bump_under_token(progress_ops_);
    executed_.store(queue_.popped(), std::memory_order_release);
    ++ran;
  }
  release_other_token();
  return ran;
}

bool HostStreamExecutor::run_program(HostOp& op, bool yield_to_callers, bool poll_only) {
  HostOp::ProgramRefs& program = op.payload.program;
  for (; program.next < program.count; ++program.next) {
    const EpochStep& step = program.steps[program.next];
    if (poll_only ? !words_set(step.waits, step.cmp, program.bias)
                  : !wait_entries(step.waits, step.cmp, yield_to_callers, program.bias))
      return false;
    for (const CopyRange& range : step.copies)
      if (range.bytes != 0) std::memcpy(range.dst, range.src, range.bytes);
    for (const SignalWrite& write : step.writes)
      __atomic_store_n(write.addr, write.value + program.bias, __ATOMIC_RELEASE);
  }
  // The caller may reuse the steps once this is stored: read nothing after.
  if (program.last.addr != nullptr)
    __atomic_store_n(program.last.addr, program.last.value, __ATOMIC_RELEASE);
  return true;
}

bool HostStreamExecutor::wait_entries(std::span<const SignalWait> waits, Cmp cmp,
                                      bool yield_to_callers, uint64_t bias) {
  auto satisfied = [&](const SignalWait& wait) {
    return wait_satisfied(__atomic_load_n(wait.addr, __ATOMIC_ACQUIRE), wait.value + bias, cmp);
  };
  if (!yield_to_callers) {
    // A synchronizing thread: the thread of the application, blocked in
    // this call as in MPI_Win_wait, so it waits as the device's waits do
    // (util::Backoff: spin while every rank has a CPU of its own, yield
    // every few polls when they share CPUs).
    util::Backoff backoff;
    for (const SignalWait& wait : waits)
      while (!satisfied(wait)) {
        wait_poll();
        cpu_relax();
        backoff.step();
      }
    return true;
  }
  PollBackoff backoff(spin_us_, poll_sleep_us_, yield_us_, polls_per_yield_);
  for (const SignalWait& wait : waits) {
    while (!satisfied(wait)) {
      // A wait only polls: a synchronizing thread may take it over.
      if (callers_waiting_.load(std::memory_order_relaxed) != 0) return false;
      wait_poll();
      backoff.pause();
    }
  }
  return true;
}

bool HostStreamExecutor::execute(HostOp& op, bool yield_to_callers) {
  switch (op.kind) {
    case HostOpKind::kUser: op.payload.user.fn(op.payload.user.arg); break;
    case HostOpKind::kSignal:
      for (const SignalWrite& write : op.entries<SignalWrite>())
        __atomic_store_n(write.addr, write.value, __ATOMIC_RELEASE);
      break;
    case HostOpKind::kWait: return wait_entries(op.entries<SignalWait>(), op.cmp, yield_to_callers);
    case HostOpKind::kCopy:
      for (const CopyRange& range : op.entries<CopyRange>())
        if (range.bytes != 0) std::memcpy(range.dst, range.src, range.bytes);
      break;
    case HostOpKind::kEpoch: {
      const HostOp::EpochRefs& step = op.payload.epoch;
      // A wait gave up: nothing was copied or written, so whoever takes the
      // token over runs the step from its start.
      if (!wait_entries({step.waits, step.wait_count}, op.cmp, yield_to_callers)) return false;
      run_epoch_body(op);
      break;
    }
    case HostOpKind::kProgram: return run_program(op, yield_to_callers, /*poll_only=*/false);
    case HostOpKind::kFence:
      // The synchronizing thread may return (and its word vanish) as soon as
      // it sees 1; a wake after that is harmless.
      if (op.payload.fence->exchange(1, std::memory_order_acq_rel) == 2)
        futex_wake(op.payload.fence, 1);
      break;
  }
  return true;
}

}  // namespace stmpi::stream
