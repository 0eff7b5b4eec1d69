// What st_test's sources share: two "ranks" of one window in this process,
// over a fake window segment in ordinary memory.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include <mpi.h>

#include "device/rma/st/epoch_plan.h"
#include "device/rma/st/stream_window.h"
#include "device/rma/window_segment.h"
#include "stream/host_stream.h"
#include "util/error.h"

namespace stmpi::dev::rma::st {

inline constexpr int kRanks = 2;
inline constexpr std::size_t kDataBytes = 4096;

// A window segment for kRanks ranks in this process's memory.
class FakeSegment {
 public:
  FakeSegment() : layout_(std::vector<uint64_t>(kRanks, kDataBytes), false, 0) {
    base_ = static_cast<char*>(std::aligned_alloc(4096, layout_.total_bytes()));
    std::memset(base_, 0, layout_.total_bytes());
  }
  ~FakeSegment() { std::free(base_); }
  FakeSegment(const FakeSegment&) = delete;
  FakeSegment& operator=(const FakeSegment&) = delete;

  WindowView view(int rank) const {
    std::vector<char*> control;
    for (int r = 0; r < kRanks; ++r) control.push_back(base_ + layout_.control(r));
    WindowView view;
    view.rank = rank;
    view.nranks = kRanks;
    view.words = SignalWords(std::move(control), layout_.stream_post_signal(0),
                             layout_.stream_complete_signal(0));
    view.segment = base_;
    view.segment_bytes = layout_.total_bytes();
    return view;
  }
  char* data(int rank) const { return base_ + layout_.data(rank); }
  char* control(int rank) const { return base_ + layout_.control(rank); }
  Region region(int target) const {
    Region region;
    region.kind = RegionKind::kMapped;
    region.native_atomics = true;
    region.target = target;
    region.mapped = data(target);
    region.bytes = kDataBytes;
    region.acc_lock = reinterpret_cast<std::atomic<uint64_t>*>(base_ + layout_.control(target) +
                                                               WindowLayout::kAccumulateLock);
    return region;
  }
  uint64_t stream_post(int owner, int from) const {
    return word(owner, layout_.stream_post_signal(from));
  }
  uint64_t stream_complete(int owner, int from) const {
    return word(owner, layout_.stream_complete_signal(from));
  }

 private:
  uint64_t word(int owner, std::size_t offset) const {
    return *reinterpret_cast<const uint64_t*>(base_ + layout_.control(owner) + offset);
  }

  WindowLayout layout_;
  char* base_ = nullptr;
};

inline std::unique_ptr<StreamWindow> make_window(const FakeSegment& segment, int rank) {
  std::unique_ptr<StreamWindow> window;
  EXPECT_EQ(StreamWindow::create(segment.view(rank), &window), MPI_SUCCESS);
  return window;
}

inline DeferredOp put_to(const FakeSegment& segment, int target) {
  DeferredOp op;
  op.kind = DeferredKind::kPut;
  op.target = target;
  op.region = segment.region(target);
  return op;
}

// Rank r puts `src[r]` into the peer's data at offset 8 * r, every epoch,
// with a user kernel before (new value) and after (check) on each stream.
struct RankState {
  int rank = 0;
  int epoch = 0;
  uint64_t src = 0;
  const uint64_t* received = nullptr;  // the peer's put, in this rank's data
  std::atomic<int> errors{0};
  int checked = 0;
};

inline void produce(void* arg) {
  auto* s = static_cast<RankState*>(arg);
  s->src = 1000u * static_cast<uint64_t>(s->epoch) + static_cast<uint64_t>(s->rank);
}

inline void check(void* arg) {
  auto* s = static_cast<RankState*>(arg);
  const uint64_t expect =
      1000u * static_cast<uint64_t>(s->epoch) + static_cast<uint64_t>(1 - s->rank);
  if (*s->received != expect) s->errors.fetch_add(1);
  ++s->epoch;
  ++s->checked;
}

// Creates the host streams and runs `epochs` exchange epochs of the two
// windows (produce, post, start, one put, complete, wait, check), then
// synchronizes. `kind`: the region kind the puts use.
inline void exchange_epochs(const FakeSegment& segment,
                            std::unique_ptr<StreamWindow> (&windows)[kRanks],
                            RankState (&state)[kRanks], int epochs, RegionKind kind) {
  std::shared_ptr<stream::HostStream> host[kRanks];
  std::shared_ptr<stream::Stream> streams[kRanks];
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_EQ(stream::HostStream::create(&host[r]), MPI_SUCCESS);
    streams[r] = host[r];
    state[r].rank = r;
    state[r].received = reinterpret_cast<const uint64_t*>(segment.data(r) + 8 * (1 - r));
  }
  for (int e = 0; e < epochs; ++e) {
    for (int r = 0; r < kRanks; ++r) {
      const int peer = 1 - r;
      ASSERT_EQ(streams[r]->launch(produce, &state[r]), MPI_SUCCESS);
      const int posted = windows[r]->post({&peer, 1}, *streams[r]);
      ASSERT_EQ(posted, MPI_SUCCESS) << util::error_string(posted);
      ASSERT_EQ(windows[r]->start({&peer, 1}), MPI_SUCCESS);
      const rma::Run run{8u * static_cast<uint64_t>(r), 8};
      const OriginPiece piece{reinterpret_cast<char*>(&state[r].src), 8};
      DeferredOp op = put_to(segment, peer);
      op.region.kind = kind;
      op.bytes = 8;
      const int recorded = windows[r]->record(op, {&run, 1}, {&piece, 1});
      ASSERT_EQ(recorded, MPI_SUCCESS) << util::error_string(recorded) << " epoch " << e;
      ASSERT_EQ(windows[r]->complete(*streams[r]), MPI_SUCCESS);
      ASSERT_EQ(windows[r]->wait(*streams[r]), MPI_SUCCESS);
      ASSERT_EQ(streams[r]->launch(check, &state[r]), MPI_SUCCESS);
    }
  }
  for (int r = 0; r < kRanks; ++r) ASSERT_EQ(streams[r]->synchronize(), MPI_SUCCESS);
}

// What every exchange of `epochs` epochs must leave: each rank checked every
// epoch without an error, and each signal word counts every epoch.
inline void expect_exchanged(const FakeSegment& segment, const RankState (&state)[kRanks],
                             int epochs) {
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(state[r].checked, epochs) << "rank " << r;
    EXPECT_EQ(state[r].errors.load(), 0) << "rank " << r;
    EXPECT_EQ(segment.stream_post(r, 1 - r), static_cast<uint64_t>(epochs)) << "rank " << r;
    EXPECT_EQ(segment.stream_complete(r, 1 - r), static_cast<uint64_t>(epochs)) << "rank " << r;
  }
}

}  // namespace stmpi::dev::rma::st
