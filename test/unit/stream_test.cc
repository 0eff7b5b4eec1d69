// Tests of the stream module (src/stream): host-stream execution order,
// signal writes and waits, copy batches, synchronize, free with pending
// work, launch counters, caller runs and inline operations (with their
// counters), many streams, idle CPU cost and enqueue cost, the
// registry and backend selection (GpuStream over a fake runtime and the
// staging of device buffers: stream_gpu_test.cc).
// The GPU backends are exercised for what this machine allows: without a
// device they must report an error, not crash.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <mpi.h>

#include "mpi/errhan/error.h"
#include "stream/backend.h"
#include "stream/host_stream.h"
#include "stream/registry.h"
#include "stream/settings.h"
#include "stream_test_helpers.h"
#include "util/param.h"

namespace stmpi::stream {
namespace {

std::string message(int code) { return mpi::errhan::error_string(code); }

using test::free_stream;
using test::make_stream;

struct Recorder {
  std::vector<int> seen;  // written by the executor thread only
  static void record(void* arg) {
    auto* item = static_cast<std::pair<Recorder*, int>*>(arg);
    item->first->seen.push_back(item->second);
  }
};

void increment(void* arg) { static_cast<std::atomic<int>*>(arg)->fetch_add(1); }

TEST(HostStream, RunsOperationsInOrder) {
  auto stream = make_stream();
  Recorder recorder;
  constexpr int kOps = 3000;  // crosses several queue segments
  std::vector<std::pair<Recorder*, int>> items;
  items.reserve(kOps);
  for (int i = 0; i < kOps; ++i) items.emplace_back(&recorder, i);
  for (auto& item : items) ASSERT_EQ(stream->launch(&Recorder::record, &item), MPI_SUCCESS);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  std::vector<int> expected(kOps);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(recorder.seen, expected);
  free_stream(stream);
}

TEST(HostStream, KindsInterleaveInOrder) {
  auto stream = make_stream();
  uint64_t word = 0;
  std::vector<char> src(1000, 'x'), dst(1000, 0);
  struct Check {
    uint64_t* word;
    std::vector<char>* dst;
    uint64_t word_seen = 0;
    char byte_seen = 0;
  } check{&word, &dst};
  ASSERT_EQ(stream->write_value(&word, 7), MPI_SUCCESS);
  ASSERT_EQ(stream->copy(dst.data(), src.data(), dst.size()), MPI_SUCCESS);
  ASSERT_EQ(stream->launch(
                [](void* arg) {
                  auto* c = static_cast<Check*>(arg);
                  c->word_seen = *c->word;
                  c->byte_seen = c->dst->back();
                },
                &check),
            MPI_SUCCESS);
  ASSERT_EQ(stream->write_value(&word, 8), MPI_SUCCESS);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(check.word_seen, 7u);
  EXPECT_EQ(check.byte_seen, 'x');
  EXPECT_EQ(word, 8u);
  free_stream(stream);
}

TEST(HostStream, WaitValueBlocksTheStreamNotTheCpu) {
  auto stream = make_stream();
  alignas(8) uint64_t word = 0;
  std::atomic<int> after{0};
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(stream->wait_value(&word, 3), MPI_SUCCESS);
  ASSERT_EQ(stream->launch(increment, &after), MPI_SUCCESS);
  // The CPU got control back at once.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(after.load(), 0) << "the stream ran past an unsatisfied wait";
  std::thread writer([&] {
    __atomic_store_n(&word, 2, __ATOMIC_RELEASE);  // not enough yet
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    __atomic_store_n(&word, 3, __ATOMIC_RELEASE);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(after.load(), 0);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(after.load(), 1);
  writer.join();
  free_stream(stream);
}

TEST(HostStream, WaitComparisons) {
  auto stream = make_stream();
  alignas(8) uint64_t word = 5;
  std::atomic<int> done{0};
  // >= is satisfied by a larger value, == is not.
  ASSERT_EQ(stream->wait_value(&word, 4), MPI_SUCCESS);
  ASSERT_EQ(stream->wait_value(&word, 5, Cmp::kEqual), MPI_SUCCESS);
  ASSERT_EQ(stream->launch(increment, &done), MPI_SUCCESS);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(done.load(), 1);
  // Wrap-around: a counter just past 2^64 is "after" one just below it.
  EXPECT_TRUE(wait_satisfied(2, UINT64_MAX - 1, Cmp::kGreaterEqual));
  EXPECT_FALSE(wait_satisfied(UINT64_MAX - 1, 2, Cmp::kGreaterEqual));
  EXPECT_FALSE(wait_satisfied(6, 5, Cmp::kEqual));
  free_stream(stream);
}

TEST(HostStream, MergedWaitOnManyWords) {
  auto stream = make_stream();
  constexpr int kWords = 26;
  alignas(64) uint64_t words[kWords] = {};
  std::vector<SignalWait> waits;
  for (int i = 0; i < kWords; ++i) waits.push_back({&words[i], 1});
  std::atomic<int> done{0};
  ASSERT_EQ(stream->wait_values(waits, Cmp::kGreaterEqual), MPI_SUCCESS);
  ASSERT_EQ(stream->launch(increment, &done), MPI_SUCCESS);
  for (int i = kWords - 1; i > 0; --i) __atomic_store_n(&words[i], 1, __ATOMIC_RELEASE);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(done.load(), 0) << "ran with one word still unsignalled";
  __atomic_store_n(&words[0], 1, __ATOMIC_RELEASE);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(done.load(), 1);
  EXPECT_EQ(stream->launch_counts()[OpKind::kWait], 1u);
  free_stream(stream);
}

TEST(HostStream, WriteValuesAreVisible) {
  auto stream = make_stream();
  alignas(64) uint64_t words[40] = {};
  std::vector<SignalWrite> writes;
  for (int i = 0; i < 40; ++i) writes.push_back({&words[i], 100u + i});
  ASSERT_EQ(stream->write_values(std::span(writes).first(2)), MPI_SUCCESS);  // inline
  ASSERT_EQ(stream->write_values(writes), MPI_SUCCESS);                      // heap entries
  writes.assign(writes.size(), SignalWrite{nullptr, 0});  // entries were copied at enqueue
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(words[i], 100u + i);
  free_stream(stream);
}

TEST(HostStream, SignalsReachAnotherStream) {
  auto producer = make_stream();
  auto consumer = make_stream();
  alignas(8) uint64_t flag = 0;
  std::vector<int> data(1000, 0), copy(1000, 0);
  std::iota(data.begin(), data.end(), 1);
  ASSERT_EQ(consumer->wait_value(&flag, 1), MPI_SUCCESS);
  ASSERT_EQ(consumer->copy(copy.data(), data.data(), data.size() * sizeof(int)), MPI_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(producer->write_value(&flag, 1), MPI_SUCCESS);
  ASSERT_EQ(consumer->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(copy, data);
  free_stream(producer);
  free_stream(consumer);
}

TEST(HostStream, CopyBatches) {
  auto stream = make_stream();
  std::mt19937 rng(42);
  constexpr int kRanges = 100;
  std::vector<std::vector<unsigned char>> src(kRanges), dst(kRanges);
  std::vector<CopyRange> ranges;
  for (int i = 0; i < kRanges; ++i) {
    const std::size_t bytes = i % 10 == 0 ? 0 : rng() % 70000;
    src[i].resize(bytes);
    dst[i].assign(bytes, 0);
    for (auto& byte : src[i]) byte = static_cast<unsigned char>(rng());
    ranges.push_back({dst[i].data(), src[i].data(), bytes});
  }
  ASSERT_EQ(stream->copy(ranges), MPI_SUCCESS);
  ASSERT_EQ(stream->copy(std::span(ranges).first(2)), MPI_SUCCESS);  // inline entries
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  for (int i = 0; i < kRanges; ++i) EXPECT_EQ(dst[i], src[i]) << "range " << i;
  EXPECT_EQ(stream->launch_counts()[OpKind::kCopy], 2u);
  free_stream(stream);
}

TEST(HostStream, SynchronizeFromManyThreads) {
  auto stream = make_stream();
  std::atomic<int> counter{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        ASSERT_EQ(stream->launch(increment, &counter), MPI_SUCCESS);
        if (i % 100 == 0) {
          ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
        }
      }
      ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counter.load(), 2000);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);  // nothing pending
  free_stream(stream);
}

TEST(HostStream, FreeRunsPendingWork) {
  auto stream = make_stream();
  static std::atomic<int> counter{0};
  counter = 0;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(stream->launch(
                  [](void*) {
                    std::this_thread::sleep_for(std::chrono::microseconds(10));
                    counter.fetch_add(1);
                  },
                  nullptr),
              MPI_SUCCESS);
  }
  EXPECT_LT(counter.load(), 1000) << "work ran before the free (test too weak)";
  free_stream(stream);
  EXPECT_EQ(counter.load(), 1000);
}

TEST(HostStream, FreeWhileAnotherCallerHoldsTheStream) {
  auto stream = make_stream();
  std::atomic<int> counter{0};
  ASSERT_EQ(stream->launch(increment, &counter), MPI_SUCCESS);
  std::shared_ptr<HostStream> held = find_host_stream(stream->handle());
  ASSERT_NE(held, nullptr);
  free_stream(stream);  // does not wait for `held`
  EXPECT_EQ(counter.load(), 1);
  EXPECT_TRUE(held->executor().stopped());
  const int code = held->launch(increment, &counter);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_OTHER);
  EXPECT_NE(message(code).find("was freed"), std::string::npos) << message(code);
  EXPECT_EQ(counter.load(), 1);
}

TEST(HostStream, LaunchCounters) {
  auto stream = make_stream();
  const LaunchCounts process_before = process_launch_counts();
  alignas(8) uint64_t words[3] = {};
  char a[8] = "abcdefg", b[8] = {};
  std::atomic<int> counter{0};
  ASSERT_EQ(stream->launch(increment, &counter), MPI_SUCCESS);
  ASSERT_EQ(stream->launch(increment, &counter), MPI_SUCCESS);
  const SignalWrite writes[3] = {{&words[0], 1}, {&words[1], 1}, {&words[2], 1}};
  ASSERT_EQ(stream->write_values(writes), MPI_SUCCESS);  // one merged launch
  const SignalWait waits[3] = {{&words[0], 1}, {&words[1], 1}, {&words[2], 1}};
  ASSERT_EQ(stream->wait_values(waits, Cmp::kGreaterEqual), MPI_SUCCESS);
  const CopyRange ranges[2] = {{b, a, 4}, {b + 4, a + 4, 4}};
  ASSERT_EQ(stream->copy(ranges), MPI_SUCCESS);
  ASSERT_EQ(stream->write_values({}), MPI_SUCCESS);  // nothing enqueued
  ASSERT_EQ(stream->copy(std::span<const CopyRange>()), MPI_SUCCESS);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);  // not a launch
  const LaunchCounts counts = stream->launch_counts();
  EXPECT_EQ(counts[OpKind::kUser], 2u);
  EXPECT_EQ(counts[OpKind::kSignal], 1u);
  EXPECT_EQ(counts[OpKind::kWait], 1u);
  EXPECT_EQ(counts[OpKind::kCopy], 1u);
  EXPECT_EQ(counts.total(), 5u);
  EXPECT_EQ(process_launch_counts().total() - process_before.total(), 5u);
  EXPECT_STREQ(b, "abcdefg");
  // Five operations: queued, or (signals, copies, satisfied waits on an idle
  // stream) done at enqueue; synchronize queues nothing.
  const HostStreamCounters c = stream->executor().counters();
  EXPECT_EQ(c.enqueued + c.inline_ops, 5u);
  EXPECT_EQ(stream->executor().executed(), c.enqueued);
  EXPECT_EQ(c.executor_ops + c.caller_ops, c.enqueued);
  free_stream(stream);
}

// The process totals are summed from the live streams and what freed ones
// left: freeing a stream neither loses nor double-counts its launches, and
// two live streams both count.
TEST(HostStream, ProcessLaunchTotalsKeepFreedStreams) {
  const LaunchCounts before = process_launch_counts();
  auto first = make_stream();
  auto second = make_stream();
  alignas(8) uint64_t word = 0;
  std::atomic<int> counter{0};
  ASSERT_EQ(first->launch(increment, &counter), MPI_SUCCESS);
  ASSERT_EQ(first->write_value(&word, 1), MPI_SUCCESS);
  ASSERT_EQ(second->wait_value(&word, 1), MPI_SUCCESS);
  ASSERT_EQ(second->launch(increment, &counter), MPI_SUCCESS);
  ASSERT_EQ(second->launch(increment, &counter), MPI_SUCCESS);
  LaunchCounts now = process_launch_counts();
  EXPECT_EQ(now.total() - before.total(), 5u);
  EXPECT_EQ(now[OpKind::kUser] - before[OpKind::kUser], 3u);
  free_stream(first);  // drops the last references: the stream object is destroyed
  now = process_launch_counts();
  EXPECT_EQ(now.total() - before.total(), 5u);
  EXPECT_EQ(now[OpKind::kSignal] - before[OpKind::kSignal], 1u);
  EXPECT_EQ(now[OpKind::kWait] - before[OpKind::kWait], 1u);
  ASSERT_EQ(second->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(counter.load(), 3);
  free_stream(second);
  EXPECT_EQ(process_launch_counts().total() - before.total(), 5u);
}

TEST(HostStream, BadArguments) {
  auto stream = make_stream();
  int code = stream->launch(nullptr, nullptr);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_ARG);
  EXPECT_NE(message(code).find("fn is NULL"), std::string::npos) << message(code);
  code = stream->write_value(nullptr, 1);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_ARG);
  alignas(8) char bytes[16];
  code = stream->wait_value(reinterpret_cast<uint64_t*>(bytes + 4), 1);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_ARG);
  EXPECT_NE(message(code).find("not an aligned 64-bit word"), std::string::npos);
  code = stream->copy(nullptr, bytes, 4);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_ARG);
  EXPECT_EQ(stream->launch_counts().total(), 0u);
  free_stream(stream);
}

TEST(HostStream, SynchronizeOrFreeFromItsOwnOperationIsAnError) {
  auto stream = make_stream();
  struct Probe {
    HostStream* stream;
    int sync_code = MPI_SUCCESS;
    int free_code = MPI_SUCCESS;
  } probe{stream.get()};
  ASSERT_EQ(stream->launch(
                [](void* arg) {
                  auto* p = static_cast<Probe*>(arg);
                  p->sync_code = p->stream->synchronize();
                  p->free_code = free_host_stream(p->stream->handle());
                },
                &probe),
            MPI_SUCCESS);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(mpi::errhan::error_class_of(probe.sync_code), MPI_ERR_OTHER);
  EXPECT_NE(message(probe.sync_code).find("wait for itself"), std::string::npos);
  EXPECT_EQ(mpi::errhan::error_class_of(probe.free_code), MPI_ERR_OTHER);
  free_stream(stream);
}

// No spinning at all: every idle moment is a futex sleep, so every enqueue
// races with the executor going to sleep. Nothing may be lost.
TEST(HostStreamExecutor, WakeProtocolWithoutSpinning) {
  HostStreamExecutor executor;
  ASSERT_EQ(executor.start(/*spin_us=*/0, /*poll_sleep_us=*/1), MPI_SUCCESS);
  std::atomic<int> counter{0};
  constexpr int kThreads = 4, kOpsPerThread = 5000;
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < kOpsPerThread; ++i) {
        HostOp op;
        op.kind = HostOpKind::kUser;
        op.payload.user = {increment, &counter};
        ASSERT_EQ(executor.enqueue(op), MPI_SUCCESS);
        if (rng() % 64 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 50));
        if (rng() % 512 == 0) {
          ASSERT_EQ(executor.synchronize(), MPI_SUCCESS);
        }
      }
    });
  }
  for (auto& producer : producers) producer.join();
  ASSERT_EQ(executor.synchronize(), MPI_SUCCESS);
  EXPECT_EQ(counter.load(), kThreads * kOpsPerThread);
  EXPECT_GT(executor.wakeups(), 0u);
  std::printf("[ measure  ] no-spin executor: %llu wake-ups for %d operations\n",
              static_cast<unsigned long long>(executor.wakeups()), kThreads * kOpsPerThread);
}

// "Caller runs": a thread in synchronize takes the queued work over (the
// executor lets go even in the middle of a wait, which only polls) and runs
// it itself, in order.
TEST(HostStreamExecutor, CallerRunsQueuedWorkInSynchronize) {
  HostStreamExecutor executor;
  ASSERT_EQ(executor.start(/*spin_us=*/0, /*poll_sleep_us=*/1), MPI_SUCCESS);
  alignas(8) uint64_t word = 0;
  HostOp wait;
  wait.kind = HostOpKind::kWait;
  const SignalWait entry{&word, 1};
  ASSERT_TRUE(wait.set_entries(std::span<const SignalWait>(&entry, 1)));
  ASSERT_EQ(executor.enqueue(wait), MPI_SUCCESS);
  constexpr int kOps = 100;
  struct Seen {
    std::vector<std::thread::id> threads;
    std::vector<int> order;
  } seen;
  std::vector<std::pair<Seen*, int>> items;
  for (int i = 0; i < kOps; ++i) items.push_back({&seen, i});
  for (auto& item : items) {
    HostOp op;
    op.kind = HostOpKind::kUser;
    op.payload.user = {[](void* arg) {
                         auto* p = static_cast<std::pair<Seen*, int>*>(arg);
                         p->first->threads.push_back(std::this_thread::get_id());
                         p->first->order.push_back(p->second);
                       },
                       &item};
    ASSERT_EQ(executor.enqueue(op), MPI_SUCCESS);
  }
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    __atomic_store_n(&word, 1, __ATOMIC_RELEASE);
  });
  ASSERT_EQ(executor.synchronize(), MPI_SUCCESS);
  setter.join();
  ASSERT_EQ(seen.order.size(), static_cast<std::size_t>(kOps));
  for (int i = 0; i < kOps; ++i) {
    EXPECT_EQ(seen.order[i], i);
    EXPECT_EQ(seen.threads[i], std::this_thread::get_id()) << "operation " << i;
  }
  const HostStreamCounters c = executor.counters();
  EXPECT_GE(c.takeovers, 1u);
  EXPECT_GE(c.caller_ops, static_cast<uint64_t>(kOps));
  EXPECT_EQ(c.caller_ops + c.executor_ops, static_cast<uint64_t>(kOps) + 1);
  EXPECT_EQ(c.sync_waits, 1u);
  std::printf(
      "[ measure  ] caller runs: %llu of %d operations run by the synchronizing thread, "
      "%llu by the stream thread, %llu wake-ups\n",
      static_cast<unsigned long long>(c.caller_ops), kOps + 1,
      static_cast<unsigned long long>(c.executor_ops), static_cast<unsigned long long>(c.wakeups));
}

// With caller runs off, synchronize only waits: the stream's thread runs
// everything.
TEST(HostStreamExecutor, WithoutCallerRunsTheThreadRunsEverything) {
  HostStreamExecutor executor;
  ASSERT_EQ(executor.start(/*spin_us=*/0, /*poll_sleep_us=*/1, /*caller_runs=*/false,
                           /*inline_ops=*/false),
            MPI_SUCCESS);
  std::atomic<int> counter{0};
  for (int i = 0; i < 50; ++i) {
    HostOp op;
    op.kind = HostOpKind::kUser;
    op.payload.user = {increment, &counter};
    ASSERT_EQ(executor.enqueue(op), MPI_SUCCESS);
  }
  ASSERT_EQ(executor.synchronize(), MPI_SUCCESS);
  EXPECT_EQ(counter.load(), 50);
  const HostStreamCounters c = executor.counters();
  EXPECT_EQ(c.caller_ops, 0u);
  // And the fence synchronize queued, which may still be retiring when
  // synchronize returns (the fence wakes the caller before it is counted).
  EXPECT_GE(c.executor_ops, 50u);
  EXPECT_LE(c.executor_ops, 51u);
  EXPECT_GE(c.handoffs, 1u);
}

// Library operations on an idle stream are done at enqueue, in stream
// order: never ahead of queued work.
TEST(HostStream, InlineOperationsOnAnIdleStream) {
  auto stream = make_stream();
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  alignas(8) uint64_t w1 = 0, w2 = 0, w3 = 0;
  const HostStreamCounters before = stream->executor().counters();
  ASSERT_EQ(stream->write_value(&w1, 5), MPI_SUCCESS);
  EXPECT_EQ(__atomic_load_n(&w1, __ATOMIC_ACQUIRE), 5u) << "signal on an idle stream not inline";
  ASSERT_EQ(stream->wait_value(&w1, 5), MPI_SUCCESS);  // already satisfied
  char src[16] = "fifteen chars!!", dst[16] = {};
  ASSERT_EQ(stream->copy(dst, src, sizeof src), MPI_SUCCESS);
  EXPECT_STREQ(dst, src);
  HostStreamCounters c = stream->executor().counters();
  EXPECT_EQ(c.inline_ops - before.inline_ops, 3u);
  EXPECT_EQ(c.inline_waits - before.inline_waits, 1u);
  EXPECT_EQ(c.enqueued, before.enqueued);
  // A wait that is not satisfied is queued, and what follows queues behind it.
  ASSERT_EQ(stream->wait_value(&w2, 1), MPI_SUCCESS);
  ASSERT_EQ(stream->write_value(&w3, 1), MPI_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(__atomic_load_n(&w3, __ATOMIC_ACQUIRE), 0u) << "a signal overtook a queued wait";
  c = stream->executor().counters();
  EXPECT_EQ(c.enqueued - before.enqueued, 2u);
  __atomic_store_n(&w2, 1, __ATOMIC_RELEASE);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(__atomic_load_n(&w3, __ATOMIC_ACQUIRE), 1u);
  // Launch counts include inline operations: a launch is a launch.
  EXPECT_EQ(stream->launch_counts()[OpKind::kSignal], 2u);
  EXPECT_EQ(stream->launch_counts()[OpKind::kWait], 2u);
  EXPECT_EQ(stream->launch_counts()[OpKind::kCopy], 1u);
  // User work is never run at enqueue.
  std::atomic<int> counter{0};
  ASSERT_EQ(stream->launch(increment, &counter), MPI_SUCCESS);
  EXPECT_EQ(stream->executor().counters().inline_ops - before.inline_ops, 3u);
  EXPECT_EQ(stream->executor().counters().enqueued - before.enqueued, 3u);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(counter.load(), 1);
  free_stream(stream);
}

TEST(HostStream, ManyStreams) {
  constexpr int kStreams = 64;
  std::vector<std::shared_ptr<HostStream>> streams;
  for (int i = 0; i < kStreams; ++i) streams.push_back(make_stream());
  EXPECT_GE(host_stream_count(), static_cast<std::size_t>(kStreams));
  // A pipeline: stream i waits for word i, then signals word i + 1.
  alignas(64) std::vector<uint64_t> words(kStreams + 1, 0);
  std::vector<std::atomic<int>> counters(kStreams);
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_EQ(streams[i]->wait_value(&words[i], 1), MPI_SUCCESS);
    for (int k = 0; k < 100; ++k)
      ASSERT_EQ(streams[i]->launch(increment, &counters[i]), MPI_SUCCESS);
    ASSERT_EQ(streams[i]->write_value(&words[i + 1], 1), MPI_SUCCESS);
  }
  __atomic_store_n(&words[0], 1, __ATOMIC_RELEASE);
  ASSERT_EQ(streams.back()->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(words[kStreams], 1u);
  for (int i = 0; i < kStreams; ++i) EXPECT_EQ(counters[i].load(), 100) << "stream " << i;
  for (auto& stream : streams) free_stream(stream);
}

TEST(HostStream, IdleStreamUsesNoCpu) {
  auto stream = make_stream();
  std::atomic<int> counter{0};
  ASSERT_EQ(stream->launch(increment, &counter), MPI_SUCCESS);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  // From the end of its last operation: a spin of STMPI_STREAM_SPIN_US,
  // then a futex sleep.
  const int64_t before = stream->executor().thread_cpu_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int64_t used = stream->executor().thread_cpu_ns() - before;
  ASSERT_GE(before, 0);
  std::printf(
      "[ measure  ] idle host stream: executor thread used %.1f us of CPU in 200 ms "
      "(spin_us=%d)\n",
      static_cast<double>(used) / 1e3, settings().spin_us);
  RecordProperty("idle_cpu_ns_per_200ms", std::to_string(used));
  EXPECT_LT(used, 2'000'000) << "an idle stream should sleep (1% of 200 ms is 2 ms)";
  // And it still wakes up for new work, and the clock does see work. Not
  // synchronize: its caller would run the work itself.
  ASSERT_EQ(stream->launch(increment, &counter), MPI_SUCCESS);
  const int64_t busy_before = stream->executor().thread_cpu_ns();
  ASSERT_EQ(stream->launch(
                [](void* arg) {
                  const auto until =
                      std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
                  while (std::chrono::steady_clock::now() < until) {
                  }
                  increment(arg);
                },
                &counter),
            MPI_SUCCESS);
  while (counter.load() != 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_GT(stream->executor().thread_cpu_ns() - busy_before, 1'000'000)
      << "the thread CPU clock did not see 20 ms of spinning";
  EXPECT_EQ(counter.load(), 3);
  EXPECT_GE(stream->executor().wakeups(), 1u);
  EXPECT_GE(stream->executor().counters().executor_ops, 2u);
  free_stream(stream);
}

TEST(HostStream, EnqueueCost) {
  auto stream = make_stream();
  std::atomic<int> counter{0};
  constexpr int kOps = 200000;
  auto nop = [](void*) {};
  // Warm the queue's segments, then measure a burst while the executor runs.
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(stream->launch(nop, nullptr), MPI_SUCCESS);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kOps; ++i) (void)stream->launch(nop, nullptr);
  auto t1 = std::chrono::steady_clock::now();
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  auto t2 = std::chrono::steady_clock::now();
  const double enqueue_ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / kOps;
  const double run_ns = std::chrono::duration<double, std::nano>(t2 - t0).count() / kOps;
  // A merged signal write of 26 words (a Faces epoch's signal kernel).
  alignas(64) uint64_t words[26] = {};
  std::vector<SignalWrite> writes;
  for (auto& word : words) writes.push_back({&word, 1});
  constexpr int kSignalOps = 20000;
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kSignalOps; ++i) (void)stream->write_values(writes);
  t1 = std::chrono::steady_clock::now();
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  const double signal_ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / kSignalOps;
  // Enqueue to a sleeping executor (includes the futex wake) and round trip.
  double wake_ns = 0, round_trip_ns = 0;
  constexpr int kWakes = 20;
  for (int i = 0; i < kWakes; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    t0 = std::chrono::steady_clock::now();
    (void)stream->launch(increment, &counter);
    t1 = std::chrono::steady_clock::now();
    (void)stream->synchronize();
    t2 = std::chrono::steady_clock::now();
    wake_ns += std::chrono::duration<double, std::nano>(t1 - t0).count() / kWakes;
    round_trip_ns += std::chrono::duration<double, std::nano>(t2 - t0).count() / kWakes;
  }
  std::printf(
      "[ measure  ] host stream enqueue: %.0f ns/op (launch, executor awake), "
      "%.0f ns/op executed end to end\n",
      enqueue_ns, run_ns);
  std::printf("[ measure  ] host stream enqueue: %.0f ns per merged 26-word signal write\n",
              signal_ns);
  std::printf(
      "[ measure  ] host stream enqueue to a sleeping executor: %.0f ns (futex wake), "
      "%.0f ns until synchronize returns\n",
      wake_ns, round_trip_ns);
  RecordProperty("enqueue_ns_per_op", std::to_string(enqueue_ns));
  EXPECT_LT(enqueue_ns, 5000.0);
  EXPECT_EQ(counter.load(), kWakes);
  free_stream(stream);
}

TEST(Registry, ResolvesHostStreamsAndRejectsOtherPointers) {
  auto stream = make_stream();
  std::shared_ptr<Stream> resolved;
  ASSERT_EQ(resolve(stream->handle(), &resolved), MPI_SUCCESS);
  EXPECT_EQ(resolved.get(), stream.get());
  EXPECT_EQ(resolved->backend(), BackendKind::kHost);
  resolved.reset();

  int not_a_stream = 0;
  std::shared_ptr<Stream> none;
  int code = resolve(&not_a_stream, &none);
  BackendKind kind;
  GpuRuntime* gpu;
  ASSERT_EQ(active_backend(&kind, &gpu), MPI_SUCCESS);
  if (kind == BackendKind::kHost) {  // a GPU runtime might accept what it knows
    EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_ARG);
    char expected[128];
    std::snprintf(expected, sizeof expected,
                  "stream=%p is not a stream this library can use (backend: host)",
                  static_cast<void*>(&not_a_stream));
    EXPECT_NE(message(code).find(expected), std::string::npos) << message(code);
    code = resolve(nullptr, &none);
    EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_ARG);
    EXPECT_NE(message(code).find("stream=NULL"), std::string::npos) << message(code);
  }
  EXPECT_EQ(none, nullptr);

  const void* handle = stream->handle();
  free_stream(stream);
  EXPECT_EQ(find_host_stream(handle), nullptr);
  code = free_host_stream(handle);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_ARG) << "double free";
  EXPECT_NE(message(code).find("not a live MPIX_Host_stream"), std::string::npos);
  if (kind == BackendKind::kHost) {
    code = resolve(const_cast<void*>(handle), &none);
    EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_ARG) << "freed stream resolved";
  }
}

// Lookups are cached per thread: a stream freed by another thread must not
// be found again from a thread that looked it up before, and a new stream
// (whatever its address) must be found.
TEST(Registry, LookupCacheForgetsFreedStreams) {
  auto first = make_stream();
  const void* first_handle = first->handle();
  std::atomic<int> phase{0};
  std::shared_ptr<HostStream> seen_before, seen_after;
  std::thread other([&] {
    seen_before = find_host_stream(first_handle);  // cached on this thread
    EXPECT_EQ(find_host_stream(first_handle), seen_before);
    phase.store(1);
    while (phase.load() != 2) std::this_thread::yield();
    seen_after = find_host_stream(first_handle);
  });
  while (phase.load() != 1) std::this_thread::yield();
  EXPECT_EQ(seen_before.get(), first.get());
  seen_before.reset();
  free_stream(first);
  phase.store(2);
  other.join();
  EXPECT_EQ(seen_after, nullptr) << "a freed stream was found through another thread's cache";
  EXPECT_EQ(find_host_stream(first_handle), nullptr);

  auto second = make_stream();
  EXPECT_EQ(find_host_stream(second->handle()).get(), second.get());
  EXPECT_EQ(find_host_stream(first_handle == second->handle() ? nullptr : first_handle), nullptr);
  std::shared_ptr<Stream> resolved;
  ASSERT_EQ(resolve(second->handle(), &resolved), MPI_SUCCESS);
  EXPECT_EQ(resolved.get(), second.get());
  resolved.reset();
  free_stream(second);
}

// Borrowed lookups (the per-call path of the MPIX calls) take no reference:
// the stream stays alive through this thread's cache while another thread
// frees it (its enqueues then fail), and is not found again afterwards.
TEST(Registry, BorrowedLookupStaysValidUntilThisThreadLooksAgain) {
  auto stream = make_stream();
  const void* handle = stream->handle();
  HostStream* borrowed = find_host_stream_borrowed(handle);
  ASSERT_EQ(borrowed, stream.get());
  Stream* resolved = nullptr;
  ASSERT_EQ(resolve_borrowed(const_cast<void*>(handle), &resolved), MPI_SUCCESS);
  EXPECT_EQ(resolved, stream.get());
  EXPECT_EQ(resolved->shared_from_this().get(), stream.get()) << "shared ownership from a borrow";
  const long owners = stream.use_count();
  EXPECT_EQ(find_host_stream(handle).get(), stream.get());
  EXPECT_EQ(stream.use_count(), owners) << "a lookup leaked a reference";

  std::weak_ptr<HostStream> watch = stream;
  stream.reset();
  std::thread other([&] { ASSERT_EQ(free_host_stream(handle), MPI_SUCCESS); });
  other.join();
  ASSERT_FALSE(watch.expired()) << "this thread's cache keeps the borrowed stream alive";
  EXPECT_TRUE(borrowed->executor().stopped());
  int ran = 0;
  const int code = borrowed->launch([](void* arg) { ++*static_cast<int*>(arg); }, &ran);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_OTHER) << "enqueue on a freed stream";
  EXPECT_EQ(find_host_stream_borrowed(handle), nullptr);
  int other_stream = 0;
  (void)find_host_stream_borrowed(&other_stream);  // a miss keeps the cache as it was
  auto next = make_stream();
  EXPECT_EQ(find_host_stream_borrowed(next->handle()), next.get());
  EXPECT_TRUE(watch.expired()) << "the cache let go of the freed stream";
  free_stream(next);
  EXPECT_EQ(ran, 0);
}

TEST(Backend, Selection) {
  BackendKind kind = BackendKind::kCuda;
  std::unique_ptr<GpuRuntime> gpu;
  std::string notes;
  ASSERT_EQ(choose_backend("host", &kind, &gpu, &notes), MPI_SUCCESS);
  EXPECT_EQ(kind, BackendKind::kHost);
  EXPECT_EQ(gpu, nullptr);

  int code = choose_backend("opencl", &kind, &gpu, &notes);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_OTHER);
  EXPECT_NE(message(code).find("STMPI_STREAM_BACKEND=opencl is not one of"), std::string::npos);

  ASSERT_EQ(choose_backend("auto", &kind, &gpu, &notes), MPI_SUCCESS);
  std::printf("[ measure  ] auto backend here: %s%s%s\n", backend_name(kind),
              notes.empty() ? "" : "; passed over: ", notes.c_str());
  if (kind == BackendKind::kHost) {
    EXPECT_NE(notes.find("hip: "), std::string::npos);
    EXPECT_NE(notes.find("cuda: "), std::string::npos);
  }
  EXPECT_EQ(backend_name(BackendKind::kHip), std::string("hip"));
}

// Built or not, with or without a device: an error message, never a crash.
TEST(Backend, GpuBackendsWithoutADeviceReportAnError) {
  for (BackendKind gpu_kind : {BackendKind::kHip, BackendKind::kCuda}) {
    const std::string name = backend_name(gpu_kind);
    std::unique_ptr<GpuRuntime> runtime;
    std::string why;
    const bool opened = open_gpu_runtime(gpu_kind, &runtime, &why);
    std::printf("[ measure  ] %s backend (%s): %s\n", name.c_str(),
                backend_built(gpu_kind) ? "built" : "not built",
                opened ? runtime->description().c_str() : why.c_str());
    if (opened) continue;  // a machine with a device
    EXPECT_EQ(runtime, nullptr);
    EXPECT_FALSE(why.empty());
    if (backend_built(gpu_kind)) {
      const char* expected = gpu_kind == BackendKind::kCuda ? "no CUDA device is present"
                                                            : "no ROCm device is present";
      EXPECT_NE(why.find(expected), std::string::npos) << why;
    } else {
      EXPECT_NE(why.find("built without it"), std::string::npos) << why;
    }
    BackendKind kind;
    std::string notes;
    const int code = choose_backend(name, &kind, &runtime, &notes);
    EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_OTHER);
    EXPECT_NE(message(code).find("STMPI: stream backend " + name + " requested but"),
              std::string::npos)
        << message(code);
  }
}

TEST(Backend, IpcNeedsAGpuBackend) {
  BackendKind kind;
  GpuRuntime* gpu;
  ASSERT_EQ(active_backend(&kind, &gpu), MPI_SUCCESS);
  if (gpu != nullptr) GTEST_SKIP() << "a GPU backend is active";
  int word = 0;
  IpcHandle handle;
  int code = ipc_export(&word, &handle);
  EXPECT_EQ(mpi::errhan::error_class_of(code), MPI_ERR_OTHER);
  EXPECT_NE(message(code).find("needs a GPU stream backend (active: host)"), std::string::npos)
      << message(code);
  IpcMapping mapping;
  EXPECT_EQ(mpi::errhan::error_class_of(ipc_open(handle, &mapping)), MPI_ERR_OTHER);
  EXPECT_EQ(mpi::errhan::error_class_of(ipc_close(mapping)), MPI_ERR_OTHER);
}

TEST(Settings, DefaultsMatchTheParameterTable) {
  const Settings before = settings();
  std::string error;
  ASSERT_TRUE(util::load_all(&error)) << error;
  EXPECT_EQ(settings().backend, before.backend);
  EXPECT_EQ(settings().spin_us, before.spin_us);
  EXPECT_EQ(settings().poll_sleep_us, before.poll_sleep_us);
  EXPECT_EQ(settings().yield_us, before.yield_us);
  EXPECT_EQ(settings().caller_runs, before.caller_runs);
  EXPECT_EQ(settings().inline_ops, before.inline_ops);
  EXPECT_EQ(settings().progress, before.progress);
  EXPECT_EQ(settings().gpu_epoch_bytes, before.gpu_epoch_bytes);
}

}  // namespace
}  // namespace stmpi::stream
