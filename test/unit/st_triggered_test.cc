// Unit tests of the stream-triggered executor between nodes
// (triggered_op_executor) over a fake TriggeredOps: two "ranks" on
// "different nodes" in this process, their signal words and data reached
// only through the fakes' operations; throttling policies and wait timeouts.
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

namespace stmpi::dev::rma::st {
namespace {

// ---- Between nodes, over a fake TriggeredOps ------------------------------

// Fires by memcpy and plain stores on Region::mapped (the fake "network"
// reaches the other rank's memory directly); a bounded counter pool.
class FakeTriggers final : public TriggeredOps {
 public:
  explicit FakeTriggers(int counters) : value_(counters, 0), used_(counters, false) {}
  TriggerMode mode() const override { return TriggerMode::kSoftware; }
  int acquire_counter(CounterId* out, bool* available) override {
    std::lock_guard<std::mutex> g(mutex_);
    *available = false;
    for (std::size_t i = 0; i < used_.size(); ++i) {
      if (used_[i]) continue;
      used_[i] = true;
      value_[i] = 0;
      *out = static_cast<CounterId>(i);
      *available = true;
      peak_ = std::max(peak_, ++in_use_);
      break;
    }
    return MPI_SUCCESS;
  }
  void release_counter(CounterId id) override {
    std::lock_guard<std::mutex> g(mutex_);
    used_[id] = false;
    --in_use_;
    for (auto it = ops_.begin(); it != ops_.end();)
      it = it->trigger == id ? ops_.erase(it) : it + 1;
  }
  int post_write(const Region& region, std::span<const Run> runs,
                 std::span<const OriginPiece> origin, CounterId trigger, uint64_t threshold,
                 CounterId completion) override {
    EXPECT_EQ(runs.size(), 1u);
    EXPECT_EQ(origin.size(), 1u);
    return post({region.mapped + runs[0].offset, origin[0].addr, runs[0].bytes, 0, trigger,
                 threshold, completion});
  }
  int post_accumulate(const Region&, std::span<const Run>, std::span<const OriginPiece>,
                      const AccumulateOp&, CounterId, uint64_t, CounterId) override {
    return MPI_ERR_INTERN;
  }
  int post_read(const Region& region, std::span<const Run> runs, std::span<const OriginPiece> dest,
                CounterId trigger, uint64_t threshold, CounterId completion) override {
    EXPECT_EQ(runs.size(), 1u);
    EXPECT_EQ(dest.size(), 1u);
    return post({dest[0].addr, region.mapped + runs[0].offset, runs[0].bytes, 0, trigger, threshold,
                 completion});
  }
  int post_signal(const Region& region, uint64_t offset, uint64_t value, CounterId trigger,
                  uint64_t threshold, CounterId completion) override {
    return post({region.mapped + offset, nullptr, 8, value, trigger, threshold, completion});
  }
  uint64_t* doorbell(CounterId) override { return nullptr; }
  int add_counter(CounterId id, uint64_t value) override {
    std::lock_guard<std::mutex> g(mutex_);
    value_[id] += value;
    fire();
    return MPI_SUCCESS;
  }
  uint64_t read_counter(CounterId id) override {
    std::lock_guard<std::mutex> g(mutex_);
    return value_[id];
  }
  int first_error(CounterId) override { return MPI_SUCCESS; }
  int peak() const { return peak_; }
  int in_use() const { return in_use_; }

 private:
  struct Op {
    char* dst;
    const char* src;  // null: a signal storing `value`
    uint64_t bytes, value;
    CounterId trigger;
    uint64_t threshold;
    CounterId completion;
  };
  int post(Op op) {
    std::lock_guard<std::mutex> g(mutex_);
    ops_.push_back(op);
    fire();
    return MPI_SUCCESS;
  }
  void fire() {  // post order, until nothing more is released
    for (bool again = true; again;) {
      again = false;
      for (auto it = ops_.begin(); it != ops_.end();) {
        if (value_[it->trigger] < it->threshold) {
          ++it;
          continue;
        }
        const Op op = *it;
        it = ops_.erase(it);
        if (op.src != nullptr) std::memcpy(op.dst, op.src, op.bytes);
        else
          std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(op.dst))
              .store(op.value, std::memory_order_release);
        ++value_[op.completion];
        again = true;
        break;
      }
    }
  }
  std::mutex mutex_;
  std::vector<uint64_t> value_;
  std::vector<bool> used_;
  std::vector<Op> ops_;
  int in_use_ = 0;
  int peak_ = 0;
};

// One per "process": window r gets fakes[r].
FakeTriggers* g_fakes[kRanks] = {};
int g_next_fake = 0;

}  // namespace

// The process's TriggeredOps, as the library's trigger_select.cc would pick
// it: here each rank of the test is a process of its own.
int process_triggered_ops(TriggeredOps** out) {
  *out = g_fakes[g_next_fake++ % kRanks];
  return MPI_SUCCESS;
}

namespace {

// Windows of two ranks on "different nodes": signal words and data are
// reached only through the "processes'" TriggeredOps (kNet regions), fake0
// and fake1.
void make_remote_windows(const FakeSegment& segment,
                         std::unique_ptr<StreamWindow> (&windows)[kRanks], FakeTriggers& fake0,
                         FakeTriggers& fake1) {
  g_fakes[0] = &fake0;
  g_fakes[1] = &fake1;
  g_next_fake = 0;
  for (int r = 0; r < kRanks; ++r) {
    WindowView view = segment.view(r);
    view.spans_nodes = true;
    view.post0 =
        WindowLayout(std::vector<uint64_t>(kRanks, kDataBytes), false, 0).stream_post_signal(0);
    view.complete0 =
        WindowLayout(std::vector<uint64_t>(kRanks, kDataBytes), false, 0).stream_complete_signal(0);
    for (int t = 0; t < kRanks; ++t) {
      Region control;
      control.kind = RegionKind::kNet;
      control.native_atomics = true;
      control.target = t;
      control.mapped = segment.control(t);
      view.control.push_back(control);
      view.remote.push_back(t != r);
    }
    ASSERT_EQ(StreamWindow::create(std::move(view), &windows[r]), MPI_SUCCESS);
    ASSERT_NE(windows[r]->remote(), nullptr);
  }
}

// Two ranks on "different nodes": their signal words and data are reached
// only through the fakes' triggered operations (kNet regions), each with a
// pool of 3 counters (an exposure epoch takes 1, an access epoch 2), so
// epochs wait for earlier ones to complete (adaptive throttling).
TEST(TriggeredOpExecutor, RemoteEpochsThroughTriggeredOps) {
  constexpr int kEpochs = 200;
  FakeTriggers fake0(3), fake1(3);
  FakeSegment segment;
  std::unique_ptr<StreamWindow> windows[kRanks];
  make_remote_windows(segment, windows, fake0, fake1);
  if (HasFatalFailure()) return;
  RankState state[kRanks];
  exchange_epochs(segment, windows, state, kEpochs, RegionKind::kNet);
  if (HasFatalFailure()) return;
  uint64_t stalls = 0;
  expect_exchanged(segment, state, kEpochs);
  for (int r = 0; r < kRanks; ++r) {
    const StreamStats s = windows[r]->stats();
    EXPECT_EQ(s.launches.signal, 2u * kEpochs);
    EXPECT_EQ(s.launches.copy, 1u * kEpochs);  // the trigger host function
    EXPECT_EQ(s.launches.wait, 2u * kEpochs);
    // Per epoch: a write, a completion signal, an exposure signal.
    EXPECT_EQ(s.trigger.posted, 3u * kEpochs);
    EXPECT_EQ(s.trigger.fired, s.trigger.posted);
    EXPECT_EQ(s.trigger.counters_in_use, 0u);
    EXPECT_LE(s.trigger.counters_max_in_use, 3u);
    stalls += s.trigger.throttle_stalls;
    EXPECT_EQ(windows[r]->drain(), MPI_SUCCESS);
  }
  EXPECT_GT(stalls, 0u);  // 3 counters cannot hold two epochs of a rank
  EXPECT_EQ(fake0.peak(), 3);
  EXPECT_EQ(fake1.peak(), 3);
  windows[0].reset();
  windows[1].reset();
}

// Sets STMPI_ST_<name> as the environment would (settings.cc's table).
void set_st_param(const char* name, const char* text) {
  for (const util::ParamTable* table : util::tables()) {
    if (std::strcmp(table->module, "st") != 0) continue;
    for (const util::Param& param : table->params)
      if (std::strcmp(param.name, name) == 0) {
        ASSERT_TRUE(util::set_from_text(param, text)) << name << "=" << text;
        return;
      }
  }
  FAIL() << "no parameter STMPI_ST_" << name;
}

// One exchange epoch of rank r (produce, post, start, one put, complete,
// wait, check), as exchange_epochs enqueues it; `post_s`: how long the post
// call took; `posted`: set once the post returned.
void one_epoch(const FakeSegment& segment, StreamWindow& window, RankState& state,
               const std::shared_ptr<stream::Stream>& stream, double* post_s = nullptr,
               std::atomic<bool>* posted_flag = nullptr) {
  const int r = state.rank, peer = 1 - r;
  ASSERT_EQ(stream->launch(produce, &state), MPI_SUCCESS);
  const auto t0 = std::chrono::steady_clock::now();
  const int posted = window.post({&peer, 1}, *stream);
  if (post_s != nullptr)
    *post_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (posted_flag != nullptr) posted_flag->store(true);
  ASSERT_EQ(posted, MPI_SUCCESS) << util::error_string(posted);
  ASSERT_EQ(window.start({&peer, 1}), MPI_SUCCESS);
  const rma::Run run{8u * static_cast<uint64_t>(r), 8};
  const OriginPiece piece{reinterpret_cast<char*>(&state.src), 8};
  DeferredOp op = put_to(segment, peer);
  op.region.kind = RegionKind::kNet;
  op.bytes = 8;
  ASSERT_EQ(window.record(op, {&run, 1}, {&piece, 1}), MPI_SUCCESS);
  ASSERT_EQ(window.complete(*stream), MPI_SUCCESS);
  ASSERT_EQ(window.wait(*stream), MPI_SUCCESS);
  ASSERT_EQ(stream->launch(check, &state), MPI_SUCCESS);
}

// Rank 0 with 3 counters: epoch 1 holds them all (exposure 1, access 2),
// its stream held by a gate until both are enqueued. Its exposure epoch
// completes as soon as its stream runs the post; its
// access epoch cannot complete before rank 1 posts, which rank 1 does only
// once rank 0's second post returned (adaptive) or after 1 s (static, whose
// post cannot return before). Adaptive reclaims the finished exposure epoch
// and reuses its counter while the access epoch is still in flight; static
// waits for every outstanding epoch, so the post waits for rank 1.
struct PolicyRun {
  TriggerStats rank0;
  double second_post_s = 0;
  bool returned_before_peer = false;
};

void run_policy(const char* policy, PolicyRun* out) {
  set_st_param("throttle", policy);
  FakeTriggers fake0(3), fake1(3);
  FakeSegment segment;
  std::unique_ptr<StreamWindow> windows[kRanks];
  make_remote_windows(segment, windows, fake0, fake1);
  if (::testing::Test::HasFatalFailure()) return;
  std::shared_ptr<stream::HostStream> hosts[kRanks];
  std::shared_ptr<stream::Stream> host[kRanks];
  RankState state[kRanks];
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_EQ(stream::HostStream::create(&hosts[r]), MPI_SUCCESS);
    host[r] = hosts[r];
    state[r].rank = r;
    state[r].received = reinterpret_cast<const uint64_t*>(segment.data(r) + 8 * (1 - r));
  }
  // Rank 1 starts once rank 0's second post returned, or after the limit;
  // released_by_post: it was the post.
  std::atomic<bool> second_posted{false}, released_by_post{false};
  const bool adaptive = std::strcmp(policy, "adaptive") == 0;
  std::thread rank1([&] {
    const auto t0 = std::chrono::steady_clock::now();
    const auto limit = std::chrono::seconds(adaptive ? 60 : 1);
    while (!second_posted.load() && std::chrono::steady_clock::now() - t0 < limit)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    released_by_post.store(second_posted.load());
    for (int e = 0; e < 2; ++e) one_epoch(segment, *windows[1], state[1], host[1]);
  });
  // A gate holds rank 0's stream through epoch 1's calls, so no epoch
  // completes (and none is reclaimed) before both are outstanding.
  std::atomic<bool> gate{false};
  ASSERT_EQ(host[0]->launch(
                [](void* arg) {
                  while (!static_cast<std::atomic<bool>*>(arg)->load())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                },
                &gate),
            MPI_SUCCESS);
  one_epoch(segment, *windows[0], state[0], host[0]);
  gate.store(true);
  // Its access epoch waits for rank 1 under both policies (2 counters).
  one_epoch(segment, *windows[0], state[0], host[0], &out->second_post_s, &second_posted);
  rank1.join();
  out->returned_before_peer = released_by_post.load();
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_EQ(host[r]->synchronize(), MPI_SUCCESS);
    EXPECT_EQ(state[r].checked, 2) << policy;
    EXPECT_EQ(state[r].errors.load(), 0) << policy;
  }
  out->rank0 = windows[0]->stats().trigger;
  EXPECT_EQ(out->rank0.fired, out->rank0.posted) << policy;
  EXPECT_LE(out->rank0.counters_max_in_use, 3u) << policy;
  for (auto& w : windows) EXPECT_EQ(w->drain(), MPI_SUCCESS);
  windows[0].reset();
  windows[1].reset();
}

TEST(TriggeredOpExecutor, StaticWaitsForEveryEpochAdaptiveReuses) {
  PolicyRun st, ad;
  run_policy("static", &st);
  run_policy("adaptive", &ad);
  set_st_param("throttle", "adaptive");
  // Static: the second post waited for rank 1, and its one stall reclaimed
  // both epochs at once, with nothing left held.
  EXPECT_FALSE(st.returned_before_peer)
      << "stalls " << st.rank0.throttle_stalls << " reclaimed " << st.rank0.throttle_reclaimed
      << " max " << st.rank0.counters_max_in_use << " posted " << st.rank0.posted;
  EXPECT_GE(st.second_post_s, 0.9);
  EXPECT_GE(st.rank0.throttle_stalls, 1u);
  EXPECT_GE(st.rank0.throttle_ns, 900000000u);
  EXPECT_GE(st.rank0.throttle_reclaimed, 2u);
  EXPECT_EQ(st.rank0.throttle_overlapped, 0u);
  // Adaptive: the same post returned before rank 1 did anything, having
  // reused the exposure epoch's counter while the access epoch held its two.
  EXPECT_TRUE(ad.returned_before_peer);
  EXPECT_GE(ad.rank0.throttle_stalls, 1u);
  EXPECT_GE(ad.rank0.throttle_reclaimed, 1u);
  EXPECT_GE(ad.rank0.throttle_overlapped, 1u);
}

// Runs `call` and returns its result and the seconds it took.
template <class Fn>
std::pair<int, double> timed(Fn&& call) {
  const auto t0 = std::chrono::steady_clock::now();
  const int err = call();
  return {err, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

// The throttle's counter waits are bounded by STMPI_ST_WAIT_TIMEOUT as its
// slot wait and the stream's waits are: an access epoch (2 counters) and an
// exposure epoch (1) queued behind a closed gate hold their whole pools, so
// the next epoch of each rank can never get a counter; after 1 s each call
// gives up with MPI_ERR_OTHER naming the parameter instead of waiting
// forever. Once the gate opens, the queued epochs complete exactly.
TEST(TriggeredOpExecutor, CounterWaitsGiveUpAfterWaitTimeout) {
  FakeTriggers fake0(2), fake1(1);
  FakeSegment segment;
  std::unique_ptr<StreamWindow> windows[kRanks];
  make_remote_windows(segment, windows, fake0, fake1);
  if (HasFatalFailure()) return;
  std::shared_ptr<stream::HostStream> host[kRanks];
  std::shared_ptr<stream::Stream> streams[kRanks];
  alignas(8) uint64_t gate = 0;
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_EQ(stream::HostStream::create(&host[r]), MPI_SUCCESS);
    streams[r] = host[r];
    ASSERT_EQ(streams[r]->wait_value(&gate, 1), MPI_SUCCESS);
  }
  set_st_param("wait_timeout", "1");
  const int origin = 0, target = 1;
  const uint64_t src = 0x5eed;
  const rma::Run run{16, 8};
  const OriginPiece piece{reinterpret_cast<char*>(const_cast<uint64_t*>(&src)), 8};
  DeferredOp op = put_to(segment, target);
  op.region.kind = RegionKind::kNet;
  op.bytes = 8;
  ASSERT_EQ(windows[origin]->start({&target, 1}), MPI_SUCCESS);
  ASSERT_EQ(windows[origin]->record(op, {&run, 1}, {&piece, 1}), MPI_SUCCESS);
  ASSERT_EQ(windows[origin]->complete(*streams[origin]), MPI_SUCCESS);
  ASSERT_EQ(windows[target]->post({&origin, 1}, *streams[target]), MPI_SUCCESS);
  ASSERT_EQ(windows[target]->wait(*streams[target]), MPI_SUCCESS);
  EXPECT_EQ(fake0.in_use(), 2);
  EXPECT_EQ(fake1.in_use(), 1);

  ASSERT_EQ(windows[origin]->start({&target, 1}), MPI_SUCCESS);
  const auto [access_err, access_s] = timed([&] {
    return windows[origin]->record(op, {&run, 1}, {&piece, 1});
  });
  EXPECT_EQ(util::error_class_of(access_err), MPI_ERR_OTHER) << util::error_string(access_err);
  EXPECT_NE(util::error_string(access_err).find("STMPI_ST_WAIT_TIMEOUT"), std::string::npos)
      << util::error_string(access_err);
  EXPECT_NE(util::error_string(access_err).find("2 trigger counters"), std::string::npos);
  EXPECT_GE(access_s, 1.0);
  EXPECT_LT(access_s, 30.0);
  windows[origin]->abandon_access();
  EXPECT_EQ(fake0.in_use(), 2);  // the failed epoch took nothing

  const auto [exposure_err, exposure_s] = timed([&] {
    return windows[target]->post({&origin, 1}, *streams[target]);
  });
  EXPECT_EQ(util::error_class_of(exposure_err), MPI_ERR_OTHER) << util::error_string(exposure_err);
  EXPECT_NE(util::error_string(exposure_err).find("STMPI_ST_WAIT_TIMEOUT"), std::string::npos)
      << util::error_string(exposure_err);
  EXPECT_NE(util::error_string(exposure_err).find("exposure epoch"), std::string::npos);
  EXPECT_GE(exposure_s, 1.0);
  EXPECT_LT(exposure_s, 30.0);
  EXPECT_FALSE(windows[target]->exposure_open());

  // Unbounded again before the stream waits start: the load of a test
  // machine must not turn the queued epochs into stalls.
  set_st_param("wait_timeout", "0");
  __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
  for (int r = 0; r < kRanks; ++r) ASSERT_EQ(streams[r]->synchronize(), MPI_SUCCESS);
  uint64_t got = 0;
  std::memcpy(&got, segment.data(target) + 16, 8);
  EXPECT_EQ(got, src);
  EXPECT_EQ(segment.stream_post(origin, target), 1u);
  EXPECT_EQ(segment.stream_complete(target, origin), 1u);
  for (int r = 0; r < kRanks; ++r) {
    const StreamStats s = windows[r]->stats();
    EXPECT_EQ(s.trigger.counters_in_use, 0u) << "rank " << r;
    EXPECT_GE(s.trigger.throttle_stalls, 1u) << "rank " << r;
    EXPECT_GE(s.trigger.throttle_ns, 1000000000u) << "rank " << r;
    EXPECT_EQ(windows[r]->drain(), MPI_SUCCESS);
  }
  EXPECT_EQ(fake0.in_use(), 0);
  EXPECT_EQ(fake1.in_use(), 0);
  windows[0].reset();
  windows[1].reset();
}

}  // namespace
}  // namespace stmpi::dev::rma::st
