#include "stream/host_stream_executor.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include <cstring>
#include <system_error>

#include <mpi.h>

#include "util/error.h"
#include "stream/host_wait.h"

namespace stmpi::stream {

void HostStreamExecutor::stop() {
  stop_.store(true, std::memory_order_seq_cst);
  if (!thread_.joinable()) return;
  wake_if_sleeping();
  thread_.join();
}

int HostStreamExecutor::start(int spin_us, int poll_sleep_us) {
  spin_us_ = spin_us > 0 ? spin_us : 0;
  poll_sleep_us_ = poll_sleep_us;
  spin_ns_ = static_cast<int64_t>(spin_us_) * 1000;
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
    error = util::make_error(MPI_ERR_OTHER, "cannot start a host stream thread: %s",
                                    e.what());
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
  wake_if_sleeping();
  return MPI_SUCCESS;
}

void HostStreamExecutor::wake_if_sleeping() {
  // Pairs with wait_for_work: either this load sees the executor's
  // sleeping_ = 1, or the executor's re-check sees the published operation.
  if (sleeping_.load(std::memory_order_seq_cst) != 0 &&
      sleeping_.exchange(0, std::memory_order_seq_cst) != 0) {
    wakeups_.fetch_add(1, std::memory_order_relaxed);
    futex_wake(&sleeping_, 1);
  }
}

int HostStreamExecutor::synchronize() {
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
    if (state == 0 && !done.compare_exchange_strong(state, 2, std::memory_order_acq_rel))
      continue;
    futex_wait(&done, 2);
  }
  return MPI_SUCCESS;
}

int64_t HostStreamExecutor::thread_cpu_ns() const {
  if (!thread_.joinable()) return -1;
  clockid_t clock;
  if (pthread_getcpuclockid(native_thread_, &clock) != 0)
    return -1;
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
    HostOp& op = queue_.front();
    execute(op);
    queue_.pop();
    executed_.store(queue_.popped(), std::memory_order_relaxed);
  }
}

bool HostStreamExecutor::wait_for_work() {
  if (queue_.has_work()) [[likely]] return true;
  const int64_t spin_until = monotonic_ns() + spin_ns_;
  for (;;) {
    if (queue_.has_work()) return true;
    if (stop_.load(std::memory_order_acquire)) return false;
    if (monotonic_ns() < spin_until) {
      for (int i = 0; i < 16; ++i) cpu_relax();
      continue;
    }
    sleeping_.store(1, std::memory_order_seq_cst);
    if (!queue_.has_work() && !stop_.load(std::memory_order_seq_cst)) futex_wait(&sleeping_, 1);
    sleeping_.store(0, std::memory_order_relaxed);
  }
}

void HostStreamExecutor::execute(const HostOp& op) {
  switch (op.kind) {
    case HostOpKind::kUser:
      op.payload.user.fn(op.payload.user.arg);
      break;
    case HostOpKind::kSignal:
      for (const SignalWrite& write : op.entries<SignalWrite>())
        __atomic_store_n(write.addr, write.value, __ATOMIC_RELEASE);
      break;
    case HostOpKind::kWait: {
      PollBackoff backoff(spin_us_, poll_sleep_us_);
      for (const SignalWait& wait : op.entries<SignalWait>()) {
        while (!wait_satisfied(__atomic_load_n(wait.addr, __ATOMIC_ACQUIRE), wait.value, op.cmp))
          backoff.pause();
      }
      break;
    }
    case HostOpKind::kCopy:
      for (const CopyRange& range : op.entries<CopyRange>())
        if (range.bytes != 0) std::memcpy(range.dst, range.src, range.bytes);
      break;
    case HostOpKind::kFence:
      // The synchronizing thread may return (and its word vanish) as soon as
      // it sees 1; a wake after that is harmless.
      if (op.payload.fence->exchange(1, std::memory_order_acq_rel) == 2)
        futex_wake(op.payload.fence, 1);
      break;
  }
}

}  // namespace stmpi::stream
