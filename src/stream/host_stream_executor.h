// HostStreamExecutor: one thread that runs a host stream's operations strictly
// in order, the CPU stand-in for a GPU's stream execution controller.
//
// Idle, the thread polls its queue for spin_us and then sleeps on a futex, so
// an idle stream costs no CPU; an enqueue wakes it only when it sleeps (one
// atomic load otherwise). A wait operation polls its words with PollBackoff.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "stream/host_op_queue.h"

namespace stmpi::stream {

class HostStreamExecutor {
 public:
  HostStreamExecutor() = default;
  // Runs everything enqueued, then stops the thread (see stop()).
  ~HostStreamExecutor() { stop(); }
  HostStreamExecutor(const HostStreamExecutor&) = delete;
  HostStreamExecutor& operator=(const HostStreamExecutor&) = delete;

  // Starts the thread; MPI_SUCCESS or an MPI_ERR_OTHER code.
  [[nodiscard]] int start(int spin_us, int poll_sleep_us);

  // Runs everything enqueued so far, then stops and joins the thread. Later
  // enqueues fail. Idempotent; not from the executor thread.
  void stop();
  bool stopped() const { return stop_.load(std::memory_order_acquire); }

  // Any thread. On failure (MPI_ERR_NO_MEM, or MPI_ERR_OTHER once stopped)
  // the operation is not enqueued and its heap entries are freed.
  [[nodiscard]] int enqueue(HostOp& op);
  // Waits until everything enqueued before the call has run. Must not be
  // called on the executor thread (it would wait for itself).
  [[nodiscard]] int synchronize();

  bool on_executor_thread() const { return std::this_thread::get_id() == thread_id_; }
  // CPU time the executor thread has used, in nanoseconds (-1 if unknown).
  int64_t thread_cpu_ns() const;
  uint64_t enqueued() const { return queue_.published(); }
  uint64_t executed() const { return executed_.load(std::memory_order_relaxed); }
  // Times an enqueue found the thread asleep and woke it.
  uint64_t wakeups() const { return wakeups_.load(std::memory_order_relaxed); }

 private:
  void run();
  bool wait_for_work();  // false: stop requested and nothing left to run
  void execute(const HostOp& op);
  void wake_if_sleeping();

  HostOpQueue queue_;
  // Read by every enqueue, written when the executor goes to sleep.
  alignas(64) std::atomic<uint32_t> sleeping_{0};
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<uint64_t> executed_{0};  // written by the executor per operation
  alignas(64) std::atomic<uint64_t> wakeups_{0};
  int64_t spin_ns_ = 0;
  int spin_us_ = 0;
  int poll_sleep_us_ = 0;
  std::thread thread_;
  std::thread::id thread_id_;
  pthread_t native_thread_{};
};

}  // namespace stmpi::stream
