// GpuStream over a fake GPU runtime that runs each "kernel" on the spot:
// merging into one launch per kind, stream memory operations for single
// words, the one-kernel epoch step; and the staging of device buffers
// (stream/staging.h), with a range of host bytes the fake calls device memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include "stream/gpu_stream.h"
#include "stream/kernel_params.h"
#include "stream/settings.h"
#include "stream/staging.h"
#include "util/param.h"

namespace stmpi::stream {
namespace {

void increment(void* arg) { static_cast<std::atomic<int>*>(arg)->fetch_add(1); }

// GpuStream's merging over a runtime that runs each "kernel" on the spot.
class FakeRuntime final : public GpuRuntime {
 public:
  BackendKind kind() const override { return BackendKind::kCuda; }
  std::string description() const override { return "fake"; }
  bool is_stream(void* handle) override { return handle == this; }
  bool has_stream_mem_ops() const override { return mem_ops; }
  // "Device memory": the bytes of device_memory (empty: none).
  bool is_device_memory(const void* ptr) override {
    const auto* p = static_cast<const char*>(ptr);
    return p >= device_memory.data() && p < device_memory.data() + device_memory.size();
  }
  int launch_kernel(void*, KernelId kernel, const LaunchShape& shape, void* params) override {
    ++kernels[static_cast<int>(kernel)];
    last_shape = shape;
    if (kernel == KernelId::kSignal) {
      auto* p = static_cast<gpu::SignalParams*>(params);
      EXPECT_GE(shape.block_x, p->count);
      for (uint32_t i = 0; i < p->count; ++i) *p->addr[i] = p->value[i];
    } else if (kernel == KernelId::kWait) {
      auto* p = static_cast<gpu::WaitParams*>(params);
      for (uint32_t i = 0; i < p->count; ++i)
        EXPECT_TRUE(wait_satisfied(*p->addr[i], p->value[i],
                                   p->cmp == gpu::kCmpEqual ? Cmp::kEqual : Cmp::kGreaterEqual));
    } else if (kernel == KernelId::kCopy) {
      auto* p = static_cast<gpu::CopyParams*>(params);
      EXPECT_EQ(shape.grid_y, p->count);
      for (uint32_t i = 0; i < p->count; ++i) {
        // With device memory, a kernel reaches it and registered host memory only.
        if (!device_memory.empty()) {
          EXPECT_TRUE(reachable(p->dst[i]) && reachable(p->src[i]));
        }
        std::memcpy(p->dst[i], p->src[i], p->bytes[i]);
      }
      ++copies;
    } else {
      // The epoch kernel: one block; waits (already satisfied here), copies, writes.
      auto* p = static_cast<gpu::EpochParams*>(params);
      EXPECT_EQ(shape.grid_x * shape.grid_y, 1u);
      EXPECT_GE(shape.block_x, std::max(p->waits, p->writes));
      for (uint32_t i = 0; i < p->waits; ++i)
        EXPECT_TRUE(wait_satisfied(*p->wait_addr[i], p->wait_value[i],
                                   p->cmp == gpu::kCmpEqual ? Cmp::kEqual : Cmp::kGreaterEqual));
      for (uint32_t i = 0; i < p->copies; ++i) std::memcpy(p->dst[i], p->src[i], p->bytes[i]);
      for (uint32_t i = 0; i < p->writes; ++i) *p->write_addr[i] = p->write_value[i];
    }
    return MPI_SUCCESS;
  }
  int write_value(void*, uint64_t* addr, uint64_t value) override {
    ++mem_op_writes;
    *addr = value;
    return MPI_SUCCESS;
  }
  int wait_value(void*, const volatile uint64_t*, uint64_t, Cmp) override {
    ++mem_op_waits;
    return MPI_SUCCESS;
  }
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

  bool mem_ops = false;
  std::vector<char> device_memory;
  std::map<char*, std::size_t> registered;
  bool hold_host_fns = false;  // host functions wait for run_held()
  std::vector<std::pair<HostFn, void*>> held;
  int copies = 0;
  int kernels[4] = {};
  int mem_op_writes = 0;
  int mem_op_waits = 0;
  LaunchShape last_shape;

 private:
  bool reachable(const void* ptr) {
    if (is_device_memory(ptr)) return true;
    for (const auto& [base, bytes] : registered)
      if (ptr >= base && ptr < base + bytes) return true;
    return false;
  }
};

TEST(GpuStream, OneLaunchPerKindPerBatch) {
  FakeRuntime runtime;
  GpuStream stream(runtime, &runtime);
  constexpr int kPeers = 26;
  std::vector<uint64_t> words(kPeers, 0);
  std::vector<SignalWrite> writes;
  std::vector<SignalWait> waits;
  for (auto& word : words) {
    writes.push_back({&word, 9});
    waits.push_back({&word, 9});
  }
  std::vector<std::vector<char>> src(kPeers, std::vector<char>(5000, 'q'));
  std::vector<std::vector<char>> dst(kPeers, std::vector<char>(5000, 0));
  std::vector<CopyRange> ranges;
  for (int i = 0; i < kPeers; ++i) ranges.push_back({dst[i].data(), src[i].data(), 5000});
  ASSERT_EQ(stream.write_values(writes), MPI_SUCCESS);
  ASSERT_EQ(stream.wait_values(waits, Cmp::kGreaterEqual), MPI_SUCCESS);
  ASSERT_EQ(stream.copy(ranges), MPI_SUCCESS);
  EXPECT_EQ(runtime.kernels[0], 1);
  EXPECT_EQ(runtime.kernels[1], 1);
  EXPECT_EQ(runtime.kernels[2], 1);
  EXPECT_EQ(dst, src);
  for (uint64_t word : words) EXPECT_EQ(word, 9u);
  const LaunchCounts counts = stream.launch_counts();
  EXPECT_EQ(counts[OpKind::kSignal], 1u);
  EXPECT_EQ(counts[OpKind::kWait], 1u);
  EXPECT_EQ(counts[OpKind::kCopy], 1u);

  // Batches beyond one parameter struct are split; zero-byte copies vanish.
  std::vector<uint64_t> many(150, 0);
  std::vector<SignalWrite> many_writes;
  for (auto& word : many) many_writes.push_back({&word, 1});
  ASSERT_EQ(stream.write_values(many_writes), MPI_SUCCESS);
  EXPECT_EQ(runtime.kernels[0], 1 + 3);
  std::vector<CopyRange> empty_copies(100, CopyRange{nullptr, nullptr, 0});
  ASSERT_EQ(stream.copy(empty_copies), MPI_SUCCESS);
  EXPECT_EQ(runtime.kernels[2], 1);
}

TEST(GpuStream, SingleWordsUseStreamMemoryOperations) {
  FakeRuntime runtime;
  runtime.mem_ops = true;
  GpuStream stream(runtime, &runtime);
  uint64_t word = 0;
  ASSERT_EQ(stream.write_value(&word, 4), MPI_SUCCESS);
  ASSERT_EQ(stream.wait_value(&word, 4), MPI_SUCCESS);
  EXPECT_EQ(word, 4u);
  EXPECT_EQ(runtime.mem_op_writes, 1);
  EXPECT_EQ(runtime.mem_op_waits, 1);
  EXPECT_EQ(runtime.kernels[0] + runtime.kernels[1], 0);
  EXPECT_EQ(stream.launch_counts()[OpKind::kSignal], 1u);
  std::atomic<int> counter{0};
  ASSERT_EQ(stream.launch(increment, &counter), MPI_SUCCESS);
  EXPECT_EQ(counter.load(), 1);
  EXPECT_EQ(copy_blocks_per_range(0), 1u);
  EXPECT_EQ(copy_blocks_per_range(1u << 30), 64u);
}

// An epoch step is one epoch kernel up to STMPI_STREAM_GPU_EPOCH_BYTES of
// copies (and EpochParams' entry limits), else a wait, a copy and a signal.
TEST(GpuStream, SmallEpochStepIsOneKernel) {
  FakeRuntime runtime;
  GpuStream stream(runtime, &runtime);
  uint64_t posted[3] = {5, 6, 7}, completed[4] = {}, retire = 0;
  std::vector<SignalWait> waits;
  std::vector<SignalWrite> writes;
  for (int i = 0; i < 3; ++i) {
    waits.push_back({&posted[i], 5});
    writes.push_back({&completed[i], 40u + static_cast<uint64_t>(i)});
  }
  writes.push_back({&retire, 9});
  std::vector<char> src(3000, 'e'), dst(3000, 0);
  const std::vector<CopyRange> copies = {{dst.data(), src.data(), 1000},
                                         {dst.data() + 1000, src.data() + 1000, 0},
                                         {dst.data() + 1000, src.data() + 1000, 2000}};
  const EpochStep step{waits, Cmp::kGreaterEqual, copies, writes};
  ASSERT_EQ(stream.wait_copy_signal(step), MPI_SUCCESS);
  EXPECT_EQ(runtime.kernels[static_cast<int>(KernelId::kEpoch)], 1);
  EXPECT_EQ(runtime.kernels[0] + runtime.kernels[1] + runtime.kernels[2], 0);
  EXPECT_EQ(dst, src);
  EXPECT_EQ(completed[2], 42u);
  EXPECT_EQ(retire, 9u);
  EXPECT_EQ(stream.launch_counts().total(), 1u);

  // Over the byte limit: the three launches.
  setenv("STMPI_STREAM_GPU_EPOCH_BYTES", "2999", 1);
  std::string error;
  ASSERT_TRUE(util::load_all(&error)) << error;
  unsetenv("STMPI_STREAM_GPU_EPOCH_BYTES");
  EXPECT_EQ(settings().gpu_epoch_bytes, 2999u);
  retire = 0;
  ASSERT_EQ(stream.wait_copy_signal(step), MPI_SUCCESS);
  EXPECT_EQ(runtime.kernels[static_cast<int>(KernelId::kEpoch)], 1);
  EXPECT_EQ(runtime.kernels[0], 1);
  EXPECT_EQ(runtime.kernels[1], 1);
  EXPECT_EQ(runtime.kernels[2], 1);
  EXPECT_EQ(retire, 9u);
  ASSERT_TRUE(util::load_all(&error)) << error;
  EXPECT_EQ(settings().gpu_epoch_bytes, 65536u);

  // More targets than EpochParams holds: the three launches too.
  std::vector<uint64_t> many(gpu::kMaxEpochWaits + 1, 1);
  std::vector<SignalWait> many_waits;
  for (uint64_t& word : many) many_waits.push_back({&word, 1});
  ASSERT_EQ(stream.wait_copy_signal({many_waits, Cmp::kGreaterEqual, copies, writes}), MPI_SUCCESS);
  EXPECT_EQ(runtime.kernels[static_cast<int>(KernelId::kEpoch)], 1);
  EXPECT_EQ(runtime.kernels[1], 2);
}

TEST(Staging, HostMemoryAndHostStreamsAreNotStaged) {
  FakeRuntime arena;
  arena.device_memory.resize(1024);
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
  FakeRuntime arena;
  arena.device_memory.resize(64 * 1024);
  GpuStream stream(arena, &arena);
  for (std::size_t i = 0; i < arena.device_memory.size(); ++i)
    arena.device_memory[i] = static_cast<char>(i);
  char* device = arena.device_memory.data() + 100;
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
