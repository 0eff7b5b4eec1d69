#include "stream/stream.h"

namespace stmpi::stream {
namespace {

std::array<std::atomic<uint64_t>, kOpKinds> g_process_launches{};

}  // namespace

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

LaunchCounts Stream::launch_counts() const {
  LaunchCounts counts;
  for (std::size_t i = 0; i < kOpKinds; ++i)
    counts.by_kind[i] = launches_[i].load(std::memory_order_relaxed);
  return counts;
}

void Stream::count_launch(OpKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  launches_[index].fetch_add(1, std::memory_order_relaxed);
  g_process_launches[index].fetch_add(1, std::memory_order_relaxed);
}

LaunchCounts process_launch_counts() {
  LaunchCounts counts;
  for (std::size_t i = 0; i < kOpKinds; ++i)
    counts.by_kind[i] = g_process_launches[i].load(std::memory_order_relaxed);
  return counts;
}

}  // namespace stmpi::stream
