// HostStreamExecutor: runs a host stream's operations strictly in order, the
// CPU stand-in for a GPU's stream execution controller.
//
// Whoever holds the stream's run token executes operations from the front
// of its queue, one at a time:
//   - the executor thread, for true asynchrony: it runs whatever is queued
//     while the enqueuing thread goes on. Idle, it polls for spin_us and then
//     sleeps on a futex, so an idle stream costs no CPU; an enqueue wakes it
//     only when it sleeps (one atomic load otherwise);
//   - a thread in synchronize() ("caller runs"): instead of sleeping until
//     the executor thread is woken, scheduled and done, it takes the token
//     (the executor hands it over at the next operation boundary, or in the
//     middle of a wait, which is only polling) and runs what is queued up to
//     its fence itself; the executor thread sleeps meanwhile;
//   - an enqueuing thread, for a library operation on an idle stream
//     (nothing queued, token free): a signal, a copy, or a wait whose words
//     are already set is done inline and never queued (run_inline_if_idle).
// The token is the only thing that orders the consumer side of the queue,
// so the order of execution is the enqueue order whoever runs it. User
// work (launch) is never run inline at enqueue, only by the executor thread
// or a synchronizing thread.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <thread>

#include "stream/host_op_queue.h"
#include "stream/host_wait.h"

namespace stmpi::stream {

// Who ran a host stream's operations and what that cost, so far.
struct HostStreamCounters {
  uint64_t enqueued = 0;      // operations queued (inline ones excluded)
  uint64_t executor_ops = 0;  // run by the executor thread
  uint64_t caller_ops = 0;    // run by a thread in synchronize
  uint64_t inline_ops = 0;    // done at enqueue on an idle stream, never queued
  uint64_t inline_waits = 0;  // of which waits found already satisfied
  uint64_t handoffs = 0;      // times the executor thread took the token to run queued work
  uint64_t progress_ops = 0;  // run by a thread in MPI progress (run_ready)
  uint64_t takeovers = 0;     // times a synchronizing thread took queued work over
  uint64_t wakeups = 0;       // futex wakes of a sleeping executor thread
  uint64_t sync_waits = 0;    // synchronize calls that had to wait at all
};

class HostStreamExecutor {
 public:
  HostStreamExecutor() = default;
  // Runs everything enqueued, then stops the thread (see stop()).
  ~HostStreamExecutor() { stop(); }
  HostStreamExecutor(const HostStreamExecutor&) = delete;
  HostStreamExecutor& operator=(const HostStreamExecutor&) = delete;

  // Starts the thread; MPI_SUCCESS or an MPI_ERR_OTHER code. `caller_runs`:
  // synchronize runs queued operations itself; `inline_ops`: library
  // operations on an idle stream run at enqueue.
  [[nodiscard]] int start(int spin_us, int poll_sleep_us, bool caller_runs = true,
                          bool inline_ops = true, int yield_us = PollBackoff::kDefaultYieldUs,
                          int polls_per_yield = PollBackoff::kDefaultPollsPerYield);

  // Runs everything enqueued so far, then stops and joins the thread. Later
  // enqueues fail. Idempotent; not from an operation of this stream.
  void stop();
  bool stopped() const { return stop_.load(std::memory_order_acquire); }

  // Any thread. On failure (MPI_ERR_NO_MEM, or MPI_ERR_OTHER once stopped)
  // the operation is not enqueued and its heap entries are freed.
  [[nodiscard]] int enqueue(HostOp& op);
  // When nothing is queued and nobody runs the stream, runs `work` on this
  // thread with the token held and returns its result (true: the operation
  // is done and must not be enqueued; false: enqueue it). Returns false
  // without calling `work` otherwise.
  template <class Work>
  bool run_inline_if_idle(Work&& work, bool is_wait);
  // Runs, on this thread, the ready operations at the front of the queue:
  // signals, copies, fences, and waits and epoch steps whose words are
  // already set. Stops at user work (never run here) and at a wait that
  // would block; does nothing while another thread runs the stream (the
  // token), so it never blocks and is safe from inside an operation of any
  // stream. Returns how many ran. For MPI progress of a rank blocked in a
  // call while its stream waits for a peer.
  uint64_t run_ready();
  // Waits until everything enqueued before the call has run. Not from an
  // operation of this stream (it would wait for itself).
  [[nodiscard]] int synchronize();

  // True on the thread that is running an operation of this stream (the
  // executor thread, or a synchronizing thread inside a user function).
  bool on_executor_thread() const;
  // CPU time the executor thread has used, in nanoseconds (-1 if unknown).
  int64_t thread_cpu_ns() const;
  uint64_t enqueued() const { return queue_.published(); }
  uint64_t executed() const { return executed_.load(std::memory_order_acquire); }
  // Times an enqueue found the thread asleep and woke it.
  uint64_t wakeups() const { return wakeups_.load(std::memory_order_relaxed); }
  HostStreamCounters counters() const;

 private:
  enum Token : uint32_t { kFree = 0, kExecutorThread = 1, kOtherThread = 2 };

  void run();
  bool wait_for_work();  // false: stop requested and nothing left to run
  // Runs the front operation; false when a wait gave up (a caller wants the
  // token) and the operation stays at the front.
  bool execute(HostOp& op, bool yield_to_callers);
  // The copies and writes of a kEpoch operation, after its waits.
  static void run_epoch_body(const HostOp& op);
  // The waits of a kWait or kEpoch operation (each value plus `bias`, for
  // a program's steps); false as execute().
  bool wait_entries(std::span<const SignalWait> waits, Cmp cmp, bool yield_to_callers,
                    uint64_t bias = 0);
  // A kProgram operation from its next step; false when a wait gave up
  // (`poll_only`: at the first wait not satisfied yet), with `next` left
  // at that step.
  bool run_program(HostOp& op, bool yield_to_callers, bool poll_only);
  // Runs queued operations while `more()` and work is queued, counting each
  // in `*ops` and, when at least one ran, the batch in `*batches` (if not
  // null); returns how many ran. Counted before an operation is published
  // as executed.
  template <class More>
  uint64_t run_queued(More&& more, bool yield_to_callers, std::atomic<uint64_t>* ops,
                      std::atomic<uint64_t>* batches);
  bool pending() const { return queue_.published() != executed_.load(std::memory_order_seq_cst); }
  // Counters written only by the token holder: one writer at a time (the
  // token's seq_cst hand-over orders them), so a plain load and store, not
  // a locked read-modify-write per operation; readers load them relaxed.
  static void bump_under_token(std::atomic<uint64_t>& counter) {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  bool try_take_token(Token who) {
    uint32_t expected = kFree;
    return token_.compare_exchange_strong(expected, who, std::memory_order_seq_cst);
  }
  // Releases a token held by a thread other than the executor; wakes the
  // executor when work was queued meanwhile.
  void release_other_token();
  // synchronize without caller-runs: a fence, then a futex sleep until the
  // executor thread has run it.
  [[nodiscard]] int wait_for_executor();
  void wake_if_sleeping();

  HostOpQueue queue_;
  // Read by every enqueue, written when the executor goes to sleep.
  alignas(64) std::atomic<uint32_t> sleeping_{0};
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<uint32_t> token_{kFree};
  std::atomic<uint32_t> callers_waiting_{0};
  alignas(64) std::atomic<uint64_t> executed_{0};  // written by the token holder per operation
  // Written only by the token holder (bump_under_token), except sync_waits_
  // and wakeups_.
  alignas(64) std::atomic<uint64_t> wakeups_{0};
  std::atomic<uint64_t> executor_ops_{0};
  std::atomic<uint64_t> caller_ops_{0};
  std::atomic<uint64_t> inline_ops_{0};
  std::atomic<uint64_t> inline_waits_{0};
  std::atomic<uint64_t> handoffs_{0};
  std::atomic<uint64_t> takeovers_{0};
  std::atomic<uint64_t> progress_ops_{0};
  std::atomic<uint64_t> sync_waits_{0};
  int64_t spin_ns_ = 0;
  int spin_us_ = 0;
  int poll_sleep_us_ = 0;
  int yield_us_ = PollBackoff::kDefaultYieldUs;
  int polls_per_yield_ = PollBackoff::kDefaultPollsPerYield;
  bool caller_runs_ = true;
  bool inline_ops_enabled_ = true;
  std::thread thread_;
  std::thread::id thread_id_;
  pthread_t native_thread_{};
};

namespace detail {
// The executor whose operation this thread is running, if any.
extern thread_local const HostStreamExecutor* tl_running;
}  // namespace detail

template <class Work>
bool HostStreamExecutor::run_inline_if_idle(Work&& work, bool is_wait) {
  if (!inline_ops_enabled_ || pending() || !try_take_token(kOtherThread)) return false;
  bool done = false;
  // Under the token `executed_` is stable; an enqueue racing with us may
  // have published since, and then the operation must queue behind it.
  if (!pending() && !stop_.load(std::memory_order_relaxed)) {
    done = work();
    if (done) {
      bump_under_token(inline_ops_);
      if (is_wait) bump_under_token(inline_waits_);
    }
  }
  release_other_token();
  return done;
}

}  // namespace stmpi::stream
