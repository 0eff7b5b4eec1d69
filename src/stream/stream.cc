#include "stream/stream.h"

#include <mutex>
#include <vector>

#include <mpi.h>

namespace stmpi::stream {
namespace {

// Live streams and the launches of freed ones, under one mutex: taken when a
// stream is created or freed and when the totals are read, never per launch.
std::mutex g_live_mutex;
Stream* g_live_head = nullptr;
std::array<uint64_t, kOpKinds> g_freed_launches{};

}  // namespace

Stream::Stream() {
  std::lock_guard lock(g_live_mutex);
  next_live_ = g_live_head;
  if (g_live_head != nullptr) g_live_head->prev_live_ = this;
  g_live_head = this;
}

Stream::~Stream() {
  std::lock_guard lock(g_live_mutex);
  for (std::size_t i = 0; i < kOpKinds; ++i)
    g_freed_launches[i] += launches_[i].load(std::memory_order_relaxed);
  if (prev_live_ != nullptr) prev_live_->next_live_ = next_live_;
  else g_live_head = next_live_;
  if (next_live_ != nullptr) next_live_->prev_live_ = prev_live_;
}

const char* backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::kHost: return "host";
    case BackendKind::kHip: return "hip";
    case BackendKind::kCuda: return "cuda";
  }
  return "unknown";
}

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kSignal: return "signal";
    case OpKind::kCopy: return "copy";
    case OpKind::kWait: return "wait";
    case OpKind::kUser: return "user";
  }
  return "unknown";
}

int Stream::wait_copy_signal(const EpochStep& step) {
  if (!step.waits.empty())
    if (int err = wait_values(step.waits, step.cmp); err != MPI_SUCCESS) return err;
  if (!step.copies.empty())
    if (int err = copy(step.copies); err != MPI_SUCCESS) return err;
  return write_values(step.writes);
}

int Stream::run_program(const StepProgram& program) {
  thread_local std::vector<SignalWait> waits;
  thread_local std::vector<SignalWrite> writes;
  for (const EpochStep& step : program.steps) {
    waits.assign(step.waits.begin(), step.waits.end());
    for (SignalWait& wait : waits) wait.value += program.bias;
    writes.assign(step.writes.begin(), step.writes.end());
    for (SignalWrite& write : writes) write.value += program.bias;
    if (!waits.empty())
      if (int err = wait_values(waits, step.cmp); err != MPI_SUCCESS) return err;
    if (!step.copies.empty())
      if (int err = copy(step.copies); err != MPI_SUCCESS) return err;
    if (int err = write_values(writes); err != MPI_SUCCESS) return err;
  }
  if (program.last.addr == nullptr) return MPI_SUCCESS;
  return write_value(program.last.addr, program.last.value);
}

LaunchCounts Stream::launch_counts() const {
  LaunchCounts counts;
  for (std::size_t i = 0; i < kOpKinds; ++i)
    counts.by_kind[i] = launches_[i].load(std::memory_order_relaxed);
  return counts;
}

void Stream::count_launch(OpKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  launches_[index].fetch_add(1, std::memory_order_relaxed);
}

void Stream::count_launches(OpKind kind, uint64_t n) {
  if (n != 0) launches_[static_cast<std::size_t>(kind)].fetch_add(n, std::memory_order_relaxed);
}

LaunchCounts process_launch_counts() {
  std::lock_guard lock(g_live_mutex);
  LaunchCounts counts;
  counts.by_kind = g_freed_launches;
  for (const Stream* s = g_live_head; s != nullptr; s = s->next_live_)
    for (std::size_t i = 0; i < kOpKinds; ++i)
      counts.by_kind[i] += s->launches_[i].load(std::memory_order_relaxed);
  return counts;
}

}  // namespace stmpi::stream
