#include "device/ofi/progress_thread.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>

#include <unistd.h>
#include <cerrno>

#include <algorithm>

#include "device/ofi/fabric.h"

namespace stmpi::dev::ofi {
namespace {

// The thread's longest nap while ranks keep polling.
constexpr int kLongestNapUs = 1000;
// The longest it sleeps on the provider's descriptors.
constexpr int kLongestBlockMs = 100;

void count(std::atomic<uint64_t>& c) {
  c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace

void ProgressThread::start(Fabric& fabric, const std::atomic<uint64_t>& polls, int sleep_us,
                           int nice) {
  if (running()) return;
  stop_ = false;
  if (fabric.wait_fd() >= 0 && stop_fd_ < 0) stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  // Without its eventfd a sleeping thread could not be stopped promptly: it
  // looks at timed intervals instead.
  if (stop_fd_ < 0) fabric.forget_wait_fd();
  thread_ = std::thread([this, &fabric, &polls, sleep_us, nice] {
    main(fabric, polls, std::max(sleep_us, 0), nice);
  });
}

void ProgressThread::stop() {
  if (thread_.joinable()) {
    stop_ = true;
    if (stop_fd_ >= 0) (void)eventfd_write(stop_fd_, 1);
    thread_.join();
  }
  if (stop_fd_ >= 0) ::close(stop_fd_);
  stop_fd_ = -1;
}

void ProgressThread::main(Fabric& fabric, const std::atomic<uint64_t>& rank_polls, int sleep_us,
                          int nice) {
  // A rank waiting in MPI polls the provider itself; the thread drives it
  // only when nobody polled since its last look (the application computes),
  // so the two never contend for the provider's lock. While the rank keeps
  // polling, the thread naps, longer each time (up to kLongestNapUs): each
  // wake-up takes a CPU from a rank on a full node.
  //
  // Where the provider has a wait set (fabric.h, wait_fd), the thread then
  // sleeps in poll(2) on it once it has driven the provider and found nothing
  // left to do, and the network wakes it (the provider's sockets are in the
  // set): a passive target answers without costing CPU while nothing
  // arrives. Without a wait set, it looks every sleep_us instead.
  const int wait_fd = fabric.wait_fd();
  // The sleeping thread runs only when the network brings work for a rank
  // that computes; a higher priority lets that wake-up preempt the
  // computation at once instead of waiting for the scheduler (on a node with
  // a rank per core there is no idle CPU to run it). Lowering the nice value
  // needs CAP_SYS_NICE or RLIMIT_NICE; without them it stays the rank's.
  if (wait_fd >= 0 && nice < 0 && setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice) != 0)
    nice_failed_ = errno;
  uint64_t seen = rank_polls.load(std::memory_order_relaxed);
  int nap_us = sleep_us;
  while (!stop_.load(std::memory_order_relaxed)) {
    const uint64_t now = rank_polls.load(std::memory_order_relaxed);
    if (now != seen) {
      seen = now;
      nap_us = std::min(std::max(nap_us, 1) * 2, std::max(sleep_us, kLongestNapUs));
      usleep(static_cast<useconds_t>(nap_us));
      continue;
    }
    // Reading a counter drives a manual-progress provider without consuming
    // completions that belong to the protocol.
    (void)fi_cntr_read(fabric.msg().cntr);
    (void)fi_cntr_read(fabric.rma().cntr);
    count(polls_);
    nap_us = sleep_us;
    if (wait_fd < 0) {
      if (nap_us > 0) usleep(static_cast<useconds_t>(nap_us));
      else sched_yield();
      continue;
    }
    if (fabric.trywait() != 0) continue;  // the provider has work: drive it again at once
    pollfd fds[2] = {{wait_fd, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    // The timeout only bounds what a missed wake-up could cost.
    const int ready = ::poll(fds, 2, kLongestBlockMs);
    count(sleeps_);
    if (ready > 0 && (fds[0].revents & POLLIN) != 0) count(wakeups_);
    else if (ready == 0) count(timeouts_);
    // `seen` stays the count from before the sleep: a rank that polled
    // meanwhile is inside MPI and takes the arrival itself (the next turn
    // naps); otherwise the next turn drives the provider at once.
  }
}

}  // namespace stmpi::dev::ofi
