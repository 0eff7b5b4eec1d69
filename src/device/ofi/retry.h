// The libfabric module's one way to wait: for a completion, or for a
// posting call that answers -FI_EAGAIN (the provider's queues are full
// until it progresses). Every wait is bounded by STMPI_OFI_TIMEOUT (0:
// forever) and yields the CPU every few spins, so a provider thread or a
// rank sharing the core runs.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include <sched.h>

#include <chrono>
#include <string>

#include "device/ofi/settings.h"

namespace stmpi::dev::ofi {

inline constexpr int kSpinsBeforeYield = 64;

// The wait limit of STMPI_OFI_TIMEOUT from now, checked every few thousand
// spins (the clock costs more than a spin).
class Deadline {
 public:
  Deadline()
      : seconds_(settings().timeout_s),
        end_(std::chrono::steady_clock::now() + std::chrono::seconds(seconds_)) {}
  bool passed(int spins) const {
    return seconds_ > 0 && spins % 1024 == 1023 && std::chrono::steady_clock::now() > end_;
  }
  std::string text() const {
    return "no completion within STMPI_OFI_TIMEOUT=" + std::to_string(seconds_) + " s";
  }

 private:
  int seconds_;
  std::chrono::steady_clock::time_point end_;
};

// One spin of a wait: yields every kSpinsBeforeYield spins.
inline void spin_pause(int spins) {
  if (spins % kSpinsBeforeYield == kSpinsBeforeYield - 1) sched_yield();
}

// Calls `issue` until it answers anything but -FI_EAGAIN, driving the
// provider between tries by reading `cntr` (and calling `on_retry`, which
// may count the turn as a poll). Gives up with -FI_EAGAIN when the deadline
// passes. Returns the provider's last answer.
template <class Issue, class OnRetry>
ssize_t retry_eagain(fid_cntr* cntr, Issue&& issue, OnRetry&& on_retry) {
  const Deadline deadline;
  for (int spins = 0;; ++spins) {
    const ssize_t rc = issue();
    if (rc != -FI_EAGAIN || deadline.passed(spins)) return rc;
    on_retry();
    if (cntr != nullptr) (void)fi_cntr_read(cntr);
    spin_pause(spins);
  }
}
template <class Issue>
ssize_t retry_eagain(fid_cntr* cntr, Issue&& issue) {
  return retry_eagain(cntr, std::forward<Issue>(issue), [] {});
}

}  // namespace stmpi::dev::ofi
