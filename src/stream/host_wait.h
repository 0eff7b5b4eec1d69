// Waiting on the host: futex sleeps on a 32-bit word and the backoff that
// host-stream wait operations poll with. These machines run many ranks on
// few cores, so nothing here spins for long: a poll spins for spin_us, then
// yields for yield_us, then sleeps for doubling intervals up to
// poll_sleep_us.
#pragma once

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace stmpi::stream {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

inline int64_t monotonic_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Sleeps while *word == expected (or until woken, or spuriously).
// Private futexes: every waiter and waker is in this process.
inline void futex_wait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

inline void futex_wake(std::atomic<uint32_t>* word, int waiters) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, waiters, nullptr,
          nullptr, 0);
}

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));

// What a host wait on signal words runs on each poll besides reading them
// (nullptr: nothing). Words that another node writes may need this
// process's own network progress to change (UCX over TCP applies remote
// atomics and puts in the target's progress): the device installs its
// network module's serve() while one runs, so that a stream waiting for a
// peer drives the network itself instead of waiting for a progress
// thread's next turn. Must never block.
using WaitPollFn = void (*)();
inline std::atomic<WaitPollFn> g_wait_poll{nullptr};
inline void set_wait_poll(WaitPollFn fn) { g_wait_poll.store(fn, std::memory_order_release); }
inline void wait_poll() {
  if (WaitPollFn fn = g_wait_poll.load(std::memory_order_acquire)) fn();
}

// How a host wait polls: spin for spin_us, then for yield_us poll with a
// sched_yield every polls_per_yield polls (default every poll; the rule of
// the device's RMA waits, 1000 or 20 polls, measured slower here), then
// sleep doubling from 1 us up to max_sleep_us. Yielding keeps the waiter
// runnable, so on a loaded node it polls again as soon as its turn comes (a
// sleeper must first be woken and then wait for a turn, milliseconds when
// many processes share a core) while every other runnable thread, the one
// it waits for included, goes first. The sleeps are for waits that last (a
// peer computing), so they cost no CPU. yield_us = kNeverSleep (-1) never
// sleeps, as the device's waits never do (measured worse at 8 ranks on the
// loaded 2-core build machine, so not the default).
class PollBackoff {
 public:
  static constexpr int kDefaultYieldUs = 2000;
  static constexpr int kDefaultPollsPerYield = 1;
  // yield_us of a waiter that never sleeps.
  static constexpr int kNeverSleep = -1;

  PollBackoff(int spin_us, int max_sleep_us, int yield_us = kDefaultYieldUs,
              int polls_per_yield = kDefaultPollsPerYield)
      : start_ns_(monotonic_ns()),
        spin_ns_(static_cast<int64_t>(spin_us > 0 ? spin_us : 0) * 1000),
        yield_ns_(yield_us < 0 ? INT64_MAX : spin_ns_ + static_cast<int64_t>(yield_us) * 1000),
        max_sleep_ns_(static_cast<int64_t>(max_sleep_us > 1 ? max_sleep_us : 1) * 1000),
        polls_per_yield_(polls_per_yield > 1 ? polls_per_yield : 1) {}

  // Called after each unsuccessful poll.
  void pause() {
    if (phase_ == Phase::kSpin) {
      for (int i = 0; i < 16; ++i) cpu_relax();
      if (monotonic_ns() - start_ns_ < spin_ns_) return;
      phase_ = Phase::kYield;
    }
    if (phase_ == Phase::kYield) {
      if (++polls_ % polls_per_yield_ != 0) {
        cpu_relax();
        return;
      }
      sched_yield();
      if (polls_ < kMinPolls || monotonic_ns() - start_ns_ < yield_ns_) return;
      phase_ = Phase::kSleep;
      return;
    }
    const timespec interval{0, static_cast<long>(sleep_ns_)};
    nanosleep(&interval, nullptr);
    sleep_ns_ = sleep_ns_ * 2 < max_sleep_ns_ ? sleep_ns_ * 2 : max_sleep_ns_;
  }

 private:
  enum class Phase { kSpin, kYield, kSleep };
  static constexpr int kMinPolls = 8;

  Phase phase_ = Phase::kSpin;
  int polls_ = 0;
  int64_t start_ns_;
  int64_t spin_ns_;
  int64_t yield_ns_;
  int64_t max_sleep_ns_;
  int polls_per_yield_;
  int64_t sleep_ns_ = 1000;
};

}  // namespace stmpi::stream
