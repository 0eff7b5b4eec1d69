// Unit tests of stream-triggered epochs (src/device/rma/st) without MPI or a
// launcher: two "ranks" of one window live in this process, over a fake
// window segment in ordinary memory. Host streams run the epochs on their
// executor threads; a fake GPU runtime checks the GPU path (registration,
// one kernel per kind and epoch) by running each launch at once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <mpi.h>

#include "device/progress.h"
#include "device/rma/st/epoch_plan.h"
#include "device/rma/st/stream_window.h"
#include "device/rma/st/triggered_op_executor.h"
#include "device/rma/window_segment.h"
#include "mpi/coll/op.h"
#include "mpi/datatype/datatype.h"
#include "stream/gpu_stream.h"
#include "stream/host_stream.h"
#include "stream/kernel_params.h"
#include "util/error.h"
#include "util/param.h"

#include "st_test_fixture.h"

// The device's progress engine is st_progress_fake.cc: only the hooks.
namespace stmpi::dev {
int live_hooks();
}  // namespace stmpi::dev

namespace stmpi::dev::rma::st {
namespace {

TEST(EpochPlan, CopiesPairTargetRunsWithOriginPieces) {
  char origin_a[12], origin_b[20];
  AccessPlan plan;
  plan.runs = {{0, 8}, {16, 8}, {40, 16}};
  plan.pieces = {{origin_a, 12}, {origin_b, 20}};
  DeferredOp op;
  op.region.mapped = reinterpret_cast<char*>(0x10000);
  op.run_count = 3;
  op.piece_count = 2;
  op.bytes = 32;
  std::vector<stream::CopyRange> copies;
  append_copies(plan, op, &copies);
  char* t = op.region.mapped;
  const std::vector<stream::CopyRange> expected = {{t + 0, origin_a, 8},
                                                   {t + 16, origin_a + 8, 4},
                                                   {t + 20, origin_b, 4},
                                                   {t + 40, origin_b + 4, 16}};
  ASSERT_EQ(copies.size(), expected.size());
  for (std::size_t i = 0; i < copies.size(); ++i) {
    EXPECT_EQ(copies[i].dst, expected[i].dst) << i;
    EXPECT_EQ(copies[i].src, expected[i].src) << i;
    EXPECT_EQ(copies[i].bytes, expected[i].bytes) << i;
  }
  // A get copies the other way; adjacent ranges merge.
  plan.runs = {{0, 8}, {8, 8}};
  plan.pieces = {{origin_b, 16}};
  op.kind = DeferredKind::kGet;
  op.run_count = 2;
  op.piece_count = 1;
  copies.clear();
  append_copies(plan, op, &copies);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].dst, origin_b);
  EXPECT_EQ(copies[0].src, t);
  EXPECT_EQ(copies[0].bytes, 16u);
}

// MPI progress runs the ready epoch steps of a window's host streams (the
// stream's thread runs them too: whoever comes first, in stream order).
TEST(StreamWindow, ProgressRunsReadyStepsOfItsHostStreams) {
  constexpr int kEpochs = 200;
  FakeSegment segment;
  std::unique_ptr<StreamWindow> windows[kRanks] = {make_window(segment, 0),
                                                   make_window(segment, 1)};
  std::shared_ptr<stream::HostStream> host[kRanks];
  uint64_t src[kRanks] = {11, 22};
  for (int r = 0; r < kRanks; ++r) ASSERT_EQ(stream::HostStream::create(&host[r]), MPI_SUCCESS);
  for (int e = 0; e < kEpochs; ++e) {
    for (int r = 0; r < kRanks; ++r) {
      const int peer = 1 - r;
      std::shared_ptr<stream::Stream> s = host[r];
      ASSERT_EQ(windows[r]->post({&peer, 1}, *s), MPI_SUCCESS);
      ASSERT_EQ(windows[r]->start({&peer, 1}), MPI_SUCCESS);
      const rma::Run run{8u * static_cast<uint64_t>(r), 8};
      const OriginPiece piece{reinterpret_cast<char*>(&src[r]), 8};
      DeferredOp op = put_to(segment, peer);
      op.bytes = 8;
      ASSERT_EQ(windows[r]->record(op, {&run, 1}, {&piece, 1}), MPI_SUCCESS);
      ASSERT_EQ(windows[r]->complete(*s), MPI_SUCCESS);
      ASSERT_EQ(windows[r]->wait(*s), MPI_SUCCESS);
    }
  }
  EXPECT_EQ(dev::live_hooks(), kRanks);
  auto done = [&] {
    for (int r = 0; r < kRanks; ++r)
      if (host[r]->executor().executed() != host[r]->executor().enqueued()) return false;
    return true;
  };
  while (!done()) dev::progress();
  uint64_t by_progress = 0;
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(segment.stream_complete(r, 1 - r), static_cast<uint64_t>(kEpochs));
    EXPECT_EQ(std::memcmp(segment.data(1 - r) + 8 * r, &src[r], 8), 0);
    by_progress += host[r]->executor().counters().progress_ops;
    EXPECT_EQ(windows[r]->drain(), MPI_SUCCESS);
  }
  EXPECT_EQ(dev::live_hooks(), 0);
  std::printf("[ measure  ] %llu of the streams' operations run by progress\n",
              static_cast<unsigned long long>(by_progress));
}

TEST(StreamWindow, TwoRanksManyEpochsOnHostStreams) {
  constexpr int kEpochs = 300;
  FakeSegment segment;
  std::unique_ptr<StreamWindow> windows[kRanks] = {make_window(segment, 0),
                                                   make_window(segment, 1)};
  RankState state[kRanks];
  exchange_epochs(segment, windows, state, kEpochs, RegionKind::kMapped);
  if (HasFatalFailure()) return;
  expect_exchanged(segment, state, kEpochs);
  for (int r = 0; r < kRanks; ++r) {
    const StreamStats s = windows[r]->stats();
    EXPECT_EQ(s.access_epochs, static_cast<uint64_t>(kEpochs));
    EXPECT_EQ(s.exposure_epochs, static_cast<uint64_t>(kEpochs));
    EXPECT_EQ(s.launches.signal, 2u * kEpochs);
    EXPECT_EQ(s.launches.copy, 1u * kEpochs);
    EXPECT_EQ(s.launches.wait, 2u * kEpochs);
    EXPECT_EQ(s.pending_plans, 0u);  // every plan recycled once the stream ran it
    EXPECT_EQ(windows[r]->drain(), MPI_SUCCESS);
  }
}

// On idle host streams a whole epoch runs at enqueue: the post signal, the
// origin's wait (the target's post already ran), the copy, the completion
// signal and the target's wait are all done inline, nothing is queued, and
// the plan retires at once.
TEST(StreamWindow, EpochOnIdleHostStreamsRunsInline) {
  FakeSegment segment;
  std::unique_ptr<StreamWindow> windows[kRanks] = {make_window(segment, 0),
                                                   make_window(segment, 1)};
  std::shared_ptr<stream::HostStream> host[kRanks];
  std::shared_ptr<stream::Stream> streams[kRanks];
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_EQ(stream::HostStream::create(&host[r]), MPI_SUCCESS);
    streams[r] = host[r];
  }
  const int origin = 0, target = 1;
  uint64_t value = 0x1234567890abcdefu;
  ASSERT_EQ(windows[target]->post({&origin, 1}, *streams[target]), MPI_SUCCESS);
  ASSERT_EQ(windows[origin]->start({&target, 1}), MPI_SUCCESS);
  const rma::Run run{0, 8};
  const OriginPiece piece{reinterpret_cast<char*>(&value), 8};
  DeferredOp op = put_to(segment, target);
  op.bytes = 8;
  ASSERT_EQ(windows[origin]->record(op, {&run, 1}, {&piece, 1}), MPI_SUCCESS);
  ASSERT_EQ(windows[origin]->complete(*streams[origin]), MPI_SUCCESS);
  ASSERT_EQ(windows[target]->wait(*streams[target]), MPI_SUCCESS);
  // No synchronize: everything already happened.
  uint64_t received = 0;
  std::memcpy(&received, segment.data(target), 8);
  EXPECT_EQ(received, value);
  EXPECT_EQ(segment.stream_post(origin, target), 1u);
  EXPECT_EQ(segment.stream_complete(target, origin), 1u);
  EXPECT_EQ(windows[origin]->stats().pending_plans, 0u);
  const stream::HostStreamCounters o = host[origin]->executor().counters();
  const stream::HostStreamCounters t = host[target]->executor().counters();
  EXPECT_EQ(o.enqueued, 0u);
  EXPECT_EQ(t.enqueued, 0u);
  EXPECT_EQ(o.inline_ops, 1u);  // one step: wait, copy, signal
  EXPECT_EQ(o.inline_waits, 1u);
  EXPECT_EQ(t.inline_ops, 2u);  // post signal, wait
  EXPECT_EQ(t.inline_waits, 1u);
  // Launches are counted as before: inline is how, not whether.
  EXPECT_EQ(windows[origin]->stats().launches.wait, 1u);
  EXPECT_EQ(windows[origin]->stats().launches.copy, 1u);
  EXPECT_EQ(windows[origin]->stats().launches.signal, 1u);
  for (int r = 0; r < kRanks; ++r) EXPECT_EQ(windows[r]->drain(), MPI_SUCCESS);
}

// Epochs queued behind a closed gate: the threads that synchronize the two
// streams take the queued epochs over and run them themselves ("caller
// runs"), each waiting for the other's signals; the results are exact.
TEST(StreamWindow, SynchronizingThreadsRunQueuedEpochs) {
  constexpr int kEpochs = 200;
  FakeSegment segment;
  std::unique_ptr<StreamWindow> windows[kRanks] = {make_window(segment, 0),
                                                   make_window(segment, 1)};
  std::shared_ptr<stream::HostStream> host[kRanks];
  std::shared_ptr<stream::Stream> streams[kRanks];
  RankState state[kRanks];
  alignas(8) uint64_t gate = 0;
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_EQ(stream::HostStream::create(&host[r]), MPI_SUCCESS);
    streams[r] = host[r];
    state[r].rank = r;
    state[r].received = reinterpret_cast<const uint64_t*>(segment.data(r) + 8 * (1 - r));
    ASSERT_EQ(streams[r]->wait_value(&gate, 1), MPI_SUCCESS);
  }
  for (int e = 0; e < kEpochs; ++e) {
    for (int r = 0; r < kRanks; ++r) {
      const int peer = 1 - r;
      ASSERT_EQ(streams[r]->launch(produce, &state[r]), MPI_SUCCESS);
      ASSERT_EQ(windows[r]->post({&peer, 1}, *streams[r]), MPI_SUCCESS);
      ASSERT_EQ(windows[r]->start({&peer, 1}), MPI_SUCCESS);
      const rma::Run run{8u * static_cast<uint64_t>(r), 8};
      const OriginPiece piece{reinterpret_cast<char*>(&state[r].src), 8};
      DeferredOp op = put_to(segment, peer);
      op.bytes = 8;
      ASSERT_EQ(windows[r]->record(op, {&run, 1}, {&piece, 1}), MPI_SUCCESS);
      ASSERT_EQ(windows[r]->complete(*streams[r]), MPI_SUCCESS);
      ASSERT_EQ(windows[r]->wait(*streams[r]), MPI_SUCCESS);
      ASSERT_EQ(streams[r]->launch(check, &state[r]), MPI_SUCCESS);
    }
  }
  std::thread other([&] { EXPECT_EQ(streams[1]->synchronize(), MPI_SUCCESS); });
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
  });
  ASSERT_EQ(streams[0]->synchronize(), MPI_SUCCESS);
  other.join();
  opener.join();
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(state[r].checked, kEpochs);
    EXPECT_EQ(state[r].errors.load(), 0);
    const stream::HostStreamCounters c = host[r]->executor().counters();
    // 1 gate + per epoch: produce, post, one step (wait, copy, signal),
    // wait, check.
    EXPECT_EQ(c.enqueued, 1u + 5u * kEpochs);
    EXPECT_EQ(c.executor_ops + c.caller_ops + c.progress_ops, c.enqueued);
    EXPECT_GE(c.takeovers, 1u);
    EXPECT_GE(c.caller_ops, 5u * kEpochs) << "rank " << r;
    EXPECT_EQ(windows[r]->stats().pending_plans, 0u);
    EXPECT_EQ(windows[r]->drain(), MPI_SUCCESS);
  }
}

TEST(StreamWindow, DrainSkipsAFreedHostStream) {
  FakeSegment segment;
  std::unique_ptr<StreamWindow> window = make_window(segment, 0);
  std::shared_ptr<stream::HostStream> host;
  ASSERT_EQ(stream::HostStream::create(&host), MPI_SUCCESS);
  const int self = 0;
  ASSERT_EQ(window->post({&self, 1}, *host), MPI_SUCCESS);
  ASSERT_EQ(window->start({&self, 1}), MPI_SUCCESS);
  ASSERT_EQ(window->complete(*host), MPI_SUCCESS);
  ASSERT_EQ(window->wait(*host), MPI_SUCCESS);
  host->shut_down();  // what MPIX_Host_stream_free does: runs the queue, then stops
  EXPECT_EQ(window->drain(), MPI_SUCCESS);
  EXPECT_EQ(window->stats().pending_plans, 0u);
}

// Runs every launch at once, as if the GPU were infinitely fast.
class FakeGpu final : public stream::GpuRuntime {
 public:
  stream::BackendKind kind() const override { return stream::BackendKind::kHip; }
  std::string description() const override { return "fake"; }
  bool is_stream(void* handle) override { return handle == this; }
  bool has_stream_mem_ops() const override { return false; }
  bool is_device_memory(const void*) override { return false; }
  int launch_kernel(void*, stream::KernelId kernel, const stream::LaunchShape&,
                    void* params) override {
    ++kernels[static_cast<int>(kernel)];
    if (kernel == stream::KernelId::kSignal) {
      auto* p = static_cast<stream::gpu::SignalParams*>(params);
      for (uint32_t i = 0; i < p->count; ++i) {
        EXPECT_TRUE(registered(p->addr[i])) << "signal word outside registered memory";
        *p->addr[i] = p->value[i];
      }
    } else if (kernel == stream::KernelId::kWait) {
      auto* p = static_cast<stream::gpu::WaitParams*>(params);
      for (uint32_t i = 0; i < p->count; ++i) {
        EXPECT_TRUE(registered(p->addr[i]));
        EXPECT_GE(*p->addr[i], p->value[i]) << "a wait that would block";
      }
    } else if (kernel == stream::KernelId::kCopy) {
      auto* p = static_cast<stream::gpu::CopyParams*>(params);
      for (uint32_t i = 0; i < p->count; ++i) std::memcpy(p->dst[i], p->src[i], p->bytes[i]);
    } else {
      auto* p = static_cast<stream::gpu::EpochParams*>(params);
      for (uint32_t i = 0; i < p->waits; ++i) EXPECT_GE(*p->wait_addr[i], p->wait_value[i]);
      for (uint32_t i = 0; i < p->copies; ++i) std::memcpy(p->dst[i], p->src[i], p->bytes[i]);
      for (uint32_t i = 0; i < p->writes; ++i) {
        EXPECT_TRUE(registered(p->write_addr[i])) << "signal word outside registered memory";
        *p->write_addr[i] = p->write_value[i];
      }
    }
    return MPI_SUCCESS;
  }
  int write_value(void*, uint64_t*, uint64_t) override { return MPI_ERR_OTHER; }
  int wait_value(void*, const volatile uint64_t*, uint64_t, stream::Cmp) override {
    return MPI_ERR_OTHER;
  }
  int launch_host_fn(void*, stream::HostFn fn, void* arg) override {
    ++host_fns;
    fn(arg);
    return MPI_SUCCESS;
  }
  int synchronize(void*) override { return MPI_SUCCESS; }
  int ipc_export(const void*, stream::IpcHandle*) override { return MPI_ERR_OTHER; }
  int ipc_open(const stream::IpcHandle&, stream::IpcMapping*) override { return MPI_ERR_OTHER; }
  int ipc_close(const stream::IpcMapping&) override { return MPI_ERR_OTHER; }
  int register_host(void* ptr, std::size_t bytes) override {
    ranges.push_back({static_cast<char*>(ptr), bytes});
    return MPI_SUCCESS;
  }
  int unregister_host(void*) override {
    ++unregistered;
    return MPI_SUCCESS;
  }

  bool registered(const volatile void* address) const {
    const auto* at = static_cast<const volatile char*>(address);
    for (const auto& range : ranges)
      if (at >= range.first && at < range.first + range.second) return true;
    return false;
  }

  int kernels[4] = {};
  int host_fns = 0;
  int unregistered = 0;
  std::vector<std::pair<char*, std::size_t>> ranges;
};

TEST(StreamWindow, GpuStreamRegistersMemoryAndMergesEveryLaunch) {
  mpi::datatype_init_predefined();
  mpi::op_init_predefined();
  constexpr int kPuts = 26;
  FakeSegment segment;
  FakeGpu gpu;
  auto stream = std::make_shared<stream::GpuStream>(gpu, &gpu);
  {
    std::unique_ptr<StreamWindow> origin = make_window(segment, 0);
    std::unique_ptr<StreamWindow> target = make_window(segment, 1);
    const int zero = 0, one = 1;
    ASSERT_EQ(target->post({&zero, 1}, *stream), MPI_SUCCESS);
    EXPECT_EQ(gpu.ranges.size(), 2u);  // the segment and the retire words
    ASSERT_EQ(origin->start({&one, 1}), MPI_SUCCESS);
    static uint64_t values[kPuts];
    for (int i = 0; i < kPuts; ++i) {
      values[i] = 7000u + static_cast<uint64_t>(i);
      const rma::Run run{16u * static_cast<uint64_t>(i), 8};  // every other word: no merging
      const OriginPiece piece{reinterpret_cast<char*>(&values[i]), 8};
      DeferredOp op = put_to(segment, 1);
      op.bytes = 8;
      ASSERT_EQ(origin->record(op, {&run, 1}, {&piece, 1}), MPI_SUCCESS);
    }
    static int64_t addend = 5;
    DeferredOp acc = put_to(segment, 1);
    acc.kind = DeferredKind::kAccumulate;
    acc.acc = AccumulateOp{util::OpKind::kSum, util::ElementKind::kInt64, 8};
    acc.bytes = 8;
    const rma::Run acc_run{8, 8};
    const OriginPiece acc_piece{reinterpret_cast<char*>(&addend), 8};
    ASSERT_EQ(origin->record(acc, {&acc_run, 1}, {&acc_piece, 1}), MPI_SUCCESS);
    ASSERT_EQ(origin->complete(*stream), MPI_SUCCESS);
    ASSERT_EQ(target->wait(*stream), MPI_SUCCESS);
    EXPECT_EQ(gpu.ranges.size(), 4u);  // the origin's window registered too

    const auto* data = reinterpret_cast<const uint64_t*>(segment.data(1));
    for (int i = 0; i < kPuts; ++i) EXPECT_EQ(data[2 * i], 7000u + static_cast<uint64_t>(i));
    EXPECT_EQ(data[1], 5u);
    // post: 1 signal; complete: 1 wait, 1 copy kernel + 1 host function
    // (accumulates), 1 signal; wait: 1 wait.
    EXPECT_EQ(gpu.kernels[static_cast<int>(stream::KernelId::kSignal)], 2);
    EXPECT_EQ(gpu.kernels[static_cast<int>(stream::KernelId::kWait)], 2);
    EXPECT_EQ(gpu.kernels[static_cast<int>(stream::KernelId::kCopy)], 1);
    EXPECT_EQ(gpu.host_fns, 1);
    const StreamStats s = origin->stats();
    EXPECT_EQ(s.launches.signal, 1u);
    EXPECT_EQ(s.launches.wait, 1u);
    EXPECT_EQ(s.launches.copy, 2u);
    EXPECT_EQ(s.puts, static_cast<uint64_t>(kPuts));
    EXPECT_EQ(s.accumulates, 1u);
    EXPECT_EQ(s.pending_plans, 0u);
    EXPECT_EQ(origin->drain(), MPI_SUCCESS);
    EXPECT_EQ(target->drain(), MPI_SUCCESS);
  }
  EXPECT_EQ(gpu.unregistered, 4);
}

}  // namespace
}  // namespace stmpi::dev::rma::st
