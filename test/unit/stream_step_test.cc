// Tests of a host stream's epoch step (Stream::wait_copy_signal: an epoch's
// wait, copies and signals as one queued operation) and of run_ready (what
// MPI progress runs of a host stream). Part of test/unit/stream_test.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include <mpi.h>

#include "stream/host_stream.h"
#include "stream/registry.h"
#include "stream_test_helpers.h"

namespace stmpi::stream {
namespace {

using test::free_stream;
using test::make_stream;

uint64_t load(const uint64_t& word) { return __atomic_load_n(&word, __ATOMIC_ACQUIRE); }

// The arrays of one step, as the ST layer keeps them in its epoch plan.
struct Step {
  alignas(8) uint64_t go = 0;
  alignas(8) uint64_t done = 0;
  alignas(8) uint64_t retire = 0;
  char src[32] = "copied by the epoch step";
  char dst[32] = {};
  std::vector<SignalWait> waits;
  std::vector<CopyRange> copies;
  std::vector<SignalWrite> writes;
  Step() {
    waits = {{&go, 1}};
    copies = {{dst, src, sizeof src}};
    writes = {{&done, 7}, {&retire, 9}};
  }
  EpochStep step() const { return {waits, Cmp::kGreaterEqual, copies, writes}; }
};

struct Seen {
  uint64_t done_at_user_op = 0;
  char dst_at_user_op[32] = {};
  Step* step = nullptr;
  static void record(void* arg) {
    auto* seen = static_cast<Seen*>(arg);
    seen->done_at_user_op = load(seen->step->done);
    std::memcpy(seen->dst_at_user_op, seen->step->dst, sizeof seen->dst_at_user_op);
  }
};

// One queued operation: nothing happens before its words are set, then the
// copies and the writes, in that order and before what follows it; one
// launch counted per part.
TEST(HostStreamStep, OneQueuedOperationInOrder) {
  auto stream = make_stream();
  Step s;
  Seen seen;
  seen.step = &s;
  const HostStreamCounters before = stream->executor().counters();
  ASSERT_EQ(stream->wait_copy_signal(s.step()), MPI_SUCCESS);
  ASSERT_EQ(stream->launch(Seen::record, &seen), MPI_SUCCESS);
  EXPECT_EQ(stream->executor().counters().enqueued - before.enqueued, 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(load(s.done), 0u) << "the step wrote before its wait was satisfied";
  EXPECT_EQ(s.dst[0], '\0') << "the step copied before its wait was satisfied";
  __atomic_store_n(&s.go, 1, __ATOMIC_RELEASE);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_STREQ(s.dst, s.src);
  EXPECT_EQ(load(s.done), 7u);
  EXPECT_EQ(load(s.retire), 9u);
  EXPECT_EQ(seen.done_at_user_op, 7u) << "work after the step ran before its writes";
  EXPECT_STREQ(seen.dst_at_user_op, s.src);
  EXPECT_EQ(stream->launch_counts()[OpKind::kWait], 1u);
  EXPECT_EQ(stream->launch_counts()[OpKind::kCopy], 1u);
  EXPECT_EQ(stream->launch_counts()[OpKind::kSignal], 1u);
  free_stream(stream);
}

// On an idle stream with its words set, the step runs at enqueue.
TEST(HostStreamStep, SatisfiedStepOnAnIdleStreamRunsAtEnqueue) {
  auto stream = make_stream();
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  Step s;
  s.go = 1;
  const HostStreamCounters before = stream->executor().counters();
  ASSERT_EQ(stream->wait_copy_signal(s.step()), MPI_SUCCESS);
  EXPECT_STREQ(s.dst, s.src);
  EXPECT_EQ(load(s.retire), 9u);
  const HostStreamCounters c = stream->executor().counters();
  EXPECT_EQ(c.enqueued, before.enqueued);
  EXPECT_EQ(c.inline_ops - before.inline_ops, 1u);
  EXPECT_EQ(c.inline_waits - before.inline_waits, 1u);
  free_stream(stream);
}

// A synchronizing thread takes a step over while the stream's thread polls
// its wait; the step runs once, from its start.
TEST(HostStreamStep, SynchronizeTakesAStepOverInItsWait) {
  auto stream = make_stream();
  Step s;
  Seen seen;
  seen.step = &s;
  ASSERT_EQ(stream->wait_copy_signal(s.step()), MPI_SUCCESS);
  ASSERT_EQ(stream->launch(Seen::record, &seen), MPI_SUCCESS);
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    __atomic_store_n(&s.go, 1, __ATOMIC_RELEASE);
  });
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  setter.join();
  EXPECT_EQ(load(s.done), 7u);
  EXPECT_STREQ(seen.dst_at_user_op, s.src);
  const HostStreamCounters c = stream->executor().counters();
  EXPECT_EQ(c.executor_ops + c.caller_ops, 2u);
  free_stream(stream);
}

// Nothing of the step's arrays is read after its last write: the caller
// may free them as soon as it sees that write.
TEST(HostStreamStep, ArraysMayGoAfterTheLastWrite) {
  auto stream = make_stream();
  for (int round = 0; round < 200; ++round) {
    auto s = std::make_unique<Step>();
    ASSERT_EQ(stream->wait_copy_signal(s->step()), MPI_SUCCESS);
    __atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
    while (load(s->retire) != 9u) std::this_thread::yield();
    EXPECT_STREQ(s->dst, s->src);
    s.reset();
  }
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  free_stream(stream);
}

TEST(HostStreamStep, BadWordsAreRejected) {
  auto stream = make_stream();
  Step s;
  s.writes[1].addr = reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(&s.retire) + 1);
  EXPECT_NE(stream->wait_copy_signal(s.step()), MPI_SUCCESS);
  s.writes[1].addr = &s.retire;
  s.waits[0].addr = nullptr;
  EXPECT_NE(stream->wait_copy_signal(s.step()), MPI_SUCCESS);
  EXPECT_EQ(stream->launch_counts().total(), 0u);
  free_stream(stream);
}

void increment_word(void* arg) {
  __atomic_fetch_add(static_cast<uint64_t*>(arg), 1, __ATOMIC_RELEASE);
}

// run_ready runs ready library operations from the front in order, and
// stops at a wait that would block and at user work. The executor has no
// thread here, so nothing else consumes the queue.
TEST(HostStreamStep, RunReadyStopsAtBlockedWaitsAndUserWork) {
  HostStreamExecutor executor;  // never started
  alignas(8) uint64_t a = 0, c = 0, user = 0;
  Step s;
  HostOp signal_a;
  signal_a.kind = HostOpKind::kSignal;
  const SignalWrite write_a{&a, 1};
  ASSERT_TRUE(signal_a.set_entries(std::span<const SignalWrite>(&write_a, 1)));
  ASSERT_EQ(executor.enqueue(signal_a), MPI_SUCCESS);
  HostOp step;
  step.kind = HostOpKind::kEpoch;
  step.payload.epoch = {s.waits.data(), s.copies.data(), s.writes.data(), 1, 1, 2};
  ASSERT_EQ(executor.enqueue(step), MPI_SUCCESS);
  HostOp work;
  work.kind = HostOpKind::kUser;
  work.payload.user = {increment_word, &user};
  ASSERT_EQ(executor.enqueue(work), MPI_SUCCESS);
  HostOp signal_c;
  signal_c.kind = HostOpKind::kSignal;
  const SignalWrite write_c{&c, 1};
  ASSERT_TRUE(signal_c.set_entries(std::span<const SignalWrite>(&write_c, 1)));
  ASSERT_EQ(executor.enqueue(signal_c), MPI_SUCCESS);

  EXPECT_EQ(executor.run_ready(), 1u);  // signal a; the step's wait is not satisfied
  EXPECT_EQ(load(a), 1u);
  EXPECT_EQ(load(s.done), 0u);
  EXPECT_EQ(executor.run_ready(), 0u);
  __atomic_store_n(&s.go, 1, __ATOMIC_RELEASE);
  EXPECT_EQ(executor.run_ready(), 1u);  // the step; then user work: stop
  EXPECT_STREQ(s.dst, s.src);
  EXPECT_EQ(load(s.retire), 9u);
  EXPECT_EQ(load(user), 0u) << "run_ready ran user work";
  EXPECT_EQ(load(c), 0u) << "run_ready ran past user work";
  EXPECT_EQ(executor.run_ready(), 0u);
  EXPECT_EQ(executor.executed(), 2u);
  EXPECT_EQ(executor.counters().progress_ops, 2u);
}

// From inside an operation of the same stream run_ready finds the token
// held and does nothing: no reentrancy.
TEST(HostStreamStep, RunReadyFromInsideItsOwnStreamDoesNothing) {
  auto stream = make_stream();
  struct Probe {
    HostStream* stream;
    uint64_t ran = 99;
    static void run(void* arg) {
      auto* probe = static_cast<Probe*>(arg);
      probe->ran = probe->stream->run_ready();
    }
  } probe{stream.get()};
  alignas(8) uint64_t after = 0;
  ASSERT_EQ(stream->launch(Probe::run, &probe), MPI_SUCCESS);
  ASSERT_EQ(stream->write_value(&after, 1), MPI_SUCCESS);
  ASSERT_EQ(stream->synchronize(), MPI_SUCCESS);
  EXPECT_EQ(probe.ran, 0u);
  EXPECT_EQ(load(after), 1u);
  free_stream(stream);
}

}  // namespace
}  // namespace stmpi::stream
