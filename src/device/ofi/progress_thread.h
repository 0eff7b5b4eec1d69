// The libfabric module's progress thread (owned by ofi::Ofi): drives a
// manual-progress provider while no MPI call does, so other ranks'
// one-sided operations on this rank's memory complete while it computes.
// It stays off the provider while the rank polls (it watches the transport's
// poll count), and where the provider has a wait set it sleeps on its
// descriptor until the network brings work.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace stmpi::dev::ofi {

class Fabric;

class ProgressThread {
 public:
  ProgressThread() = default;
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;
  ~ProgressThread() { stop(); }

  // Starts the thread over `fabric`; `polls` is the transport's count of
  // polls and waits (it naps while that count moves). `sleep_us`: between
  // looks without a wait set; `nice`: its nice value when it sleeps on the
  // wait set (STMPI_OFI_PROGRESS_THREAD_NICE).
  void start(Fabric& fabric, const std::atomic<uint64_t>& polls, int sleep_us, int nice);
  // Stops and joins it (wakes a sleeping one at once). Callable twice.
  void stop();
  bool running() const { return thread_.joinable(); }

  uint64_t polls() const { return polls_.load(std::memory_order_relaxed); }
  uint64_t sleeps() const { return sleeps_.load(std::memory_order_relaxed); }
  uint64_t wakeups() const { return wakeups_.load(std::memory_order_relaxed); }
  uint64_t timeouts() const { return timeouts_.load(std::memory_order_relaxed); }
  // errno of a setpriority that failed (its nice value stayed the rank's), 0 if none.
  int nice_failed() const { return nice_failed_.load(std::memory_order_relaxed); }

 private:
  void main(Fabric& fabric, const std::atomic<uint64_t>& rank_polls, int sleep_us, int nice);

  std::thread thread_;
  std::atomic<bool> stop_{false};
  int stop_fd_ = -1;  // eventfd that wakes a sleeping thread at stop()
  std::atomic<int> nice_failed_{0};
  std::atomic<uint64_t> polls_{0};     // provider polls made by the thread
  std::atomic<uint64_t> sleeps_{0};    // its sleeps on the provider's descriptors
  std::atomic<uint64_t> wakeups_{0};   // sleeps that the network ended
  std::atomic<uint64_t> timeouts_{0};  // sleeps that ended by their timeout
};

}  // namespace stmpi::dev::ofi
