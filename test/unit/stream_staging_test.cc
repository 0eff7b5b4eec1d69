// Staging of device buffers (stream/staging.h) on a GpuStream over a fake
// runtime whose "device memory" is one host array the test marks as such:
// copies run at once, host functions too, registrations are counted.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include <mpi.h>

#include "stream/gpu_stream.h"
#include "stream/kernel_params.h"
#include "stream/staging.h"

namespace stmpi::stream {
namespace {

class DeviceArena final : public GpuRuntime {
 public:
  explicit DeviceArena(std::size_t bytes) : memory(bytes, 0) {}

  BackendKind kind() const override { return BackendKind::kCuda; }
  std::string description() const override { return "arena"; }
  bool is_stream(void* handle) override { return handle == this; }
  bool has_stream_mem_ops() const override { return false; }
  bool is_device_memory(const void* ptr) override {
    const auto* p = static_cast<const char*>(ptr);
    return p >= memory.data() && p < memory.data() + memory.size();
  }
  int launch_kernel(void*, KernelId kernel, const LaunchShape&, void* params) override {
    if (kernel != KernelId::kCopy) return MPI_ERR_OTHER;
    auto* p = static_cast<gpu::CopyParams*>(params);
    for (uint32_t i = 0; i < p->count; ++i) {
      // A kernel reaches device memory and registered host memory only.
      EXPECT_TRUE(reachable(p->dst[i]) && reachable(p->src[i]));
      std::memcpy(p->dst[i], p->src[i], p->bytes[i]);
    }
    ++copies;
    return MPI_SUCCESS;
  }
  int write_value(void*, uint64_t*, uint64_t) override { return MPI_ERR_OTHER; }
  int wait_value(void*, const volatile uint64_t*, uint64_t, Cmp) override { return MPI_ERR_OTHER; }
  int launch_host_fn(void*, HostFn fn, void* arg) override {
    if (hold_host_fns) {
      held.push_back({fn, arg});
      return MPI_SUCCESS;
    }
    fn(arg);
    return MPI_SUCCESS;
  }
  int synchronize(void*) override { return MPI_SUCCESS; }
  int ipc_export(const void*, IpcHandle*) override { return MPI_ERR_OTHER; }
  int ipc_open(const IpcHandle&, IpcMapping*) override { return MPI_ERR_OTHER; }
  int ipc_close(const IpcMapping&) override { return MPI_ERR_OTHER; }
  int register_host(void* ptr, std::size_t bytes) override {
    registered.emplace(static_cast<char*>(ptr), bytes);
    return MPI_SUCCESS;
  }
  int unregister_host(void* ptr) override {
    return registered.erase(static_cast<char*>(ptr)) == 1 ? MPI_SUCCESS : MPI_ERR_OTHER;
  }
  void run_held() {
    for (auto [fn, arg] : held) fn(arg);
    held.clear();
  }

  std::vector<char> memory;
  std::map<char*, std::size_t> registered;
  int copies = 0;
  bool hold_host_fns = false;
  std::vector<std::pair<HostFn, void*>> held;

 private:
  bool reachable(const void* ptr) {
    if (is_device_memory(ptr)) return true;
    for (const auto& [base, bytes] : registered)
      if (ptr >= base && ptr < base + bytes) return true;
    return false;
  }
};

TEST(Staging, HostMemoryAndHostStreamsAreNotStaged) {
  DeviceArena arena(1024);
  GpuStream stream(arena, &arena);
  std::vector<char> host(100);
  Staged staged;
  ASSERT_EQ(stage(stream, host.data(), host.size(), &staged), MPI_SUCCESS);
  EXPECT_FALSE(staged);
  EXPECT_EQ(staged.host_address(host.data()), host.data());
  ASSERT_EQ(stage(stream, nullptr, 10, &staged), MPI_SUCCESS);
  EXPECT_FALSE(staged);
  ASSERT_EQ(copy_in(stream, staged), MPI_SUCCESS);
  EXPECT_EQ(arena.copies, 0);
}

TEST(Staging, CopiesRunOnTheStreamAndBuffersComeBackAfterIt) {
  DeviceArena arena(64 * 1024);
  GpuStream stream(arena, &arena);
  for (std::size_t i = 0; i < arena.memory.size(); ++i) arena.memory[i] = static_cast<char>(i);
  char* device = arena.memory.data() + 100;
  const StagingCounts before = staging_counts();

  Staged staged;
  ASSERT_EQ(stage(stream, device, 5000, &staged), MPI_SUCCESS);
  ASSERT_TRUE(staged);
  EXPECT_EQ(staged.capacity, 8192u);
  EXPECT_EQ(staged.host_address(device + 7), staged.host + 7);
  EXPECT_EQ(arena.registered.count(staged.host), 1u);
  ASSERT_EQ(copy_in(stream, staged), MPI_SUCCESS);
  EXPECT_EQ(std::memcmp(staged.host, device, 5000), 0);

  // What "MPI" writes into the host copy reaches the device buffer only
  // through copy_out, and nothing beyond the span.
  std::memset(staged.host, 'x', 5000);
  const char after_span = device[5000];
  ASSERT_EQ(copy_out(stream, staged), MPI_SUCCESS);
  EXPECT_EQ(device[0], 'x');
  EXPECT_EQ(device[4999], 'x');
  EXPECT_EQ(device[5000], after_span);
  EXPECT_EQ(arena.copies, 2);

  // The buffer returns to the pool only when the stream reaches the release.
  arena.hold_host_fns = true;
  char* host = staged.host;
  ASSERT_EQ(release_after(stream, {staged, Staged{}}), MPI_SUCCESS);
  EXPECT_EQ(staging_counts().pooled, before.pooled);
  arena.run_held();
  EXPECT_EQ(staging_counts().pooled, before.pooled + 1);

  // The next stage of the same size class reuses it: no new registration.
  Staged again;
  ASSERT_EQ(stage(stream, device, 4097, &again), MPI_SUCCESS);
  EXPECT_EQ(again.host, host);
  EXPECT_EQ(staging_counts().allocated, before.allocated + 1);
  release_now(again);
  EXPECT_FALSE(again);

  free_staging_pool();
  EXPECT_EQ(arena.registered.count(host), 0u);
  EXPECT_EQ(staging_counts().allocated, before.allocated);
}

}  // namespace
}  // namespace stmpi::stream
