#include "device/rma/st/stream_window.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

#include <mpi.h>

#include "device/progress.h"
#include "device/rma/net_rma.h"
#include "device/rma/st/merged_kernel_executor.h"
#include "device/rma/st/settings.h"
#include "stream/host_stream.h"
#include "stream/settings.h"
#include "util/error.h"

namespace stmpi::dev::rma::st {
namespace {

constexpr std::size_t kRetirePageBytes = kMaxStreamsPerWindow * sizeof(uint64_t);

static_assert(kRetirePageBytes == 4096, "the retire words fill one page");

// Counters only grow; compare the way stream waits do (wrap-around safe).
bool reached(uint64_t word, uint64_t target) { return static_cast<int64_t>(word - target) >= 0; }

// Retired plans kept for reuse, with their vectors' capacity: as many as may
// be in flight, so a program that enqueues many epochs per synchronize
// allocates nothing from its second batch on (the memory is the peak it
// already had in flight).
std::size_t max_spare_plans() { return static_cast<std::size_t>(settings().max_pending_epochs); }

}  // namespace

StreamWindow::StreamWindow(WindowView view) : view_(std::move(view)) {
  exposures_to_.assign(static_cast<std::size_t>(view_.nranks), 0);
  accesses_to_.assign(static_cast<std::size_t>(view_.nranks), 0);
}

int StreamWindow::create(WindowView view, std::unique_ptr<StreamWindow>* out) {
  std::unique_ptr<StreamWindow> window(new (std::nothrow) StreamWindow(std::move(view)));
  void* page = std::aligned_alloc(kRetirePageBytes, kRetirePageBytes);
  if (window == nullptr || page == nullptr) {
    std::free(page);
    return util::make_error(MPI_ERR_NO_MEM,
                            "out of memory for the stream-triggered state of a window");
  }
  std::memset(page, 0, kRetirePageBytes);
  window->retire_words_ = static_cast<uint64_t*>(page);
  const WindowView& v = window->view_;
  std::vector<HostRange> host_memory{{v.segment, v.segment_bytes}, {page, kRetirePageBytes}};
  auto merged = std::make_unique<MergedKernelExecutor>(v.rank, v.words, std::move(host_memory));
  if (v.spans_nodes) {
    for (std::size_t r = 0; r < v.control.size(); ++r) {
      if (!v.remote[r]) continue;
      const Region& c = v.control[r];
      if (c.kind != RegionKind::kNet || !c.native_atomics)
        return util::make_error(
            MPI_ERR_UNSUPPORTED_OPERATION,
            "stream-triggered epochs with rank %zu on another node need the network provider's "
            "native 64-bit atomics on its control block (signal stores); this provider or "
            "setting (STMPI_RMA_AM_ATOMICS) reaches it by active messages",
            r);
    }
    TriggeredOps* ops = nullptr;
    if (int err = process_triggered_ops(&ops); err != MPI_SUCCESS) return err;
    RemoteView remote;
    remote.rank = v.rank;
    remote.control = v.control;
    remote.remote = v.remote;
    remote.post0 = v.post0;
    remote.complete0 = v.complete0;
    window->remote_ = std::make_unique<TriggeredOpExecutor>(std::move(remote), v.words, *ops,
                                                            throttle_policy_setting());
    merged->set_partner(window->remote_.get());
  }
  window->executor_ = std::move(merged);
  *out = std::move(window);
  return MPI_SUCCESS;
}

int StreamWindow::remote_error() {
  if (remote_ == nullptr) return MPI_SUCCESS;
  remote_->reclaim();
  return remote_->take_error();
}

StreamWindow::~StreamWindow() {
  stop_progress_hook();
  executor_.reset();  // unregisters the retire page before it is freed
  std::free(retire_words_);
}

int StreamWindow::slot_of(stream::Stream& stream, int* slot) {
  if (last_slot_ >= 0 && slots_[static_cast<std::size_t>(last_slot_)].stream.get() == &stream) {
    *slot = last_slot_;
    return MPI_SUCCESS;
  }
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].stream.get() == &stream) {
      *slot = last_slot_ = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  if (slots_.size() == kMaxStreamsPerWindow)
    return util::make_error(MPI_ERR_OTHER,
                            "stream %p would be the %zu-th stream used for stream epochs of "
                            "this window (at most %zu)",
                            stream.handle(), slots_.size() + 1, kMaxStreamsPerWindow);
  if (int err = executor_->attach_stream(stream); err != MPI_SUCCESS) return err;
  slots_.push_back({stream.shared_from_this(), 0});
  if (stream.backend() == stream::BackendKind::kHost && stream::settings().progress) {
    host_streams_.push_back(&static_cast<stream::HostStream&>(stream));
    if (progress_hook_ < 0)
      progress_hook_ = add_progress_hook(&StreamWindow::run_ready_host_ops, this);
  }
  *slot = last_slot_ = static_cast<int>(slots_.size() - 1);
  return MPI_SUCCESS;
}

int StreamWindow::run_ready_host_ops(void* window) {
  uint64_t ran = 0;
  // run_ready takes nothing while another thread (or this one, from inside
  // an operation) runs a stream, and never runs user work: no reentrancy,
  // stream order kept.
  for (stream::HostStream* host : static_cast<StreamWindow*>(window)->host_streams_)
    ran += host->run_ready();
  return static_cast<int>(ran);
}

void StreamWindow::stop_progress_hook() {
  if (progress_hook_ >= 0) remove_progress_hook(progress_hook_);
  progress_hook_ = -1;
  host_streams_.clear();
}

uint64_t StreamWindow::retired(int slot) const {
  return std::atomic_ref<uint64_t>(retire_words_[slot]).load(std::memory_order_acquire);
}

// Constant time per retired plan: a plan behind an unfinished one (possible
// only when a window's epochs use several streams) waits its turn here.
int StreamWindow::reclaim() {
  int failure = MPI_SUCCESS;
  while (!in_flight_.empty()) {
    std::unique_ptr<AccessPlan>& plan = in_flight_.front();
    if (!reached(retired(plan->slot), plan->seq)) break;
    if (const int err = plan->failure.load(std::memory_order_relaxed);
        err != MPI_SUCCESS && failure == MPI_SUCCESS)
      failure = err;
    if (spare_.size() < max_spare_plans()) {
      plan->clear();
      spare_.push_back(std::move(plan));
    }
    in_flight_.pop_front();
  }
  return failure;
}

int StreamWindow::throttle() {
  // start() reclaimed (and reported failures) just before this epoch:
  // below the limit there is nothing to wait for.
  const auto limit = static_cast<std::size_t>(settings().max_pending_epochs);
  if (in_flight_.size() < limit) return MPI_SUCCESS;
  if (int err = reclaim(); err != MPI_SUCCESS) return err;
  if (in_flight_.size() < limit) return MPI_SUCCESS;
  ++stats_.throttled;
  // The stream is behind by `limit` epochs: it needs the CPU more than this
  // thread does, so after a short spin sleep between checks.
  ProgressWait wait;
  int err = MPI_SUCCESS;
  for (int round = 0; in_flight_.size() >= limit && err == MPI_SUCCESS; ++round) {
    if (round < 100) {
      wait.pause();
    } else {
      const timespec nap{0, 20'000};
      nanosleep(&nap, nullptr);
    }
    err = reclaim();
  }
  return err;
}

int StreamWindow::post(std::span<const int> origins, stream::Stream& stream) {
  int slot = 0;
  if (int err = slot_of(stream, &slot); err != MPI_SUCCESS) return err;
  // Plans are access-side: start and complete recycle them (and report
  // their failures); a post has none to look at.
  if (int err = remote_error(); err != MPI_SUCCESS) return err;
  exposure_.origins.assign(origins.begin(), origins.end());
  exposure_.epochs.clear();
  for (int origin : origins) exposure_.epochs.push_back(++exposures_to_[origin]);
  if (int err = executor_->post(exposure_, stream, &stats_.launches); err != MPI_SUCCESS) {
    // One launch, so nothing was enqueued: the epoch numbers stay in step.
    for (int origin : origins) --exposures_to_[origin];
    return err;
  }
  exposure_open_ = true;
  return MPI_SUCCESS;
}

int StreamWindow::wait(stream::Stream& stream) {
  int slot = 0;
  if (int err = slot_of(stream, &slot); err != MPI_SUCCESS) return err;
  if (int err = remote_error(); err != MPI_SUCCESS) return err;
  // One launch: after a failure nothing was enqueued and the epoch stays open.
  if (int err = executor_->wait(exposure_, stream, &stats_.launches); err != MPI_SUCCESS)
    return err;
  exposure_open_ = false;
  ++stats_.exposure_epochs;
  return MPI_SUCCESS;
}

int StreamWindow::start(std::span<const int> targets) {
  if (int err = reclaim(); err != MPI_SUCCESS) return err;
  if (int err = remote_error(); err != MPI_SUCCESS) return err;
  if (!spare_.empty()) {
    access_ = std::move(spare_.back());
    spare_.pop_back();
  } else {
    access_.reset(new (std::nothrow) AccessPlan);
    if (access_ == nullptr)
      return util::make_error(MPI_ERR_NO_MEM, "out of memory for a stream epoch plan");
  }
  access_->targets.assign(targets.begin(), targets.end());
  for (int target : targets) access_->epochs.push_back(++accesses_to_[target]);
  return MPI_SUCCESS;
}

int StreamWindow::record(const DeferredOp& op, std::span<const Run> runs,
                         std::span<const OriginPiece> pieces) {
  AccessPlan& plan = *access_;
  DeferredOp& recorded = plan.ops.emplace_back(op);
  recorded.first_run = static_cast<uint32_t>(plan.runs.size());
  recorded.run_count = static_cast<uint32_t>(runs.size());
  recorded.first_piece = static_cast<uint32_t>(plan.pieces.size());
  recorded.piece_count = static_cast<uint32_t>(pieces.size());
  plan.runs.insert(plan.runs.end(), runs.begin(), runs.end());
  plan.pieces.insert(plan.pieces.end(), pieces.begin(), pieces.end());
  // A recording leaves calls to other nodes to each start of the
  // persistent epoch (the executor would post their triggered operations).
  const bool later = recording_ && remote_ != nullptr && op.region.kind == RegionKind::kNet;
  if (int err = later ? MPI_SUCCESS : executor_->record(plan, plan.ops.size() - 1);
      err != MPI_SUCCESS) {
    plan.runs.resize(recorded.first_run);
    plan.pieces.resize(recorded.first_piece);
    plan.ops.pop_back();
    return err;
  }
  switch (op.kind) {
    case DeferredKind::kPut: ++stats_.puts; break;
    case DeferredKind::kGet: ++stats_.gets; break;
    case DeferredKind::kAccumulate:
      ++stats_.accumulates;
      ++plan.accumulates;
      break;
  }
  return MPI_SUCCESS;
}

int StreamWindow::complete(stream::Stream& stream) {
  int slot = 0;
  if (int err = slot_of(stream, &slot); err != MPI_SUCCESS) return err;
  if (int err = throttle(); err != MPI_SUCCESS) return err;
  AccessPlan& plan = *access_;
  plan.slot = slot;
  plan.seq = ++slots_[static_cast<std::size_t>(slot)].issued;
  const int err = executor_->complete(plan, stream, &retire_words_[slot], &stats_.launches);
  // Even after a failure part of the epoch may be queued: the plan stays
  // until the stream has passed it (drain() makes sure of that).
  in_flight_.push_back(std::move(access_));
  ++stats_.access_epochs;
  if (err != MPI_SUCCESS) return err;
  return remote_error();
}

int StreamWindow::begin_recording(std::span<const int> targets) {
  if (int err = start({}); err != MPI_SUCCESS) return err;
  access_->targets.assign(targets.begin(), targets.end());
  recording_ = true;
  return MPI_SUCCESS;
}

std::unique_ptr<AccessPlan> StreamWindow::end_recording() {
  recording_ = false;
  return std::move(access_);
}

int StreamWindow::issue(stream::Stream& stream, int* slot, uint64_t* seq, uint64_t** retire_word) {
  if (int err = slot_of(stream, slot); err != MPI_SUCCESS) return err;
  if (int err = reclaim(); err != MPI_SUCCESS) return err;
  if (int err = remote_error(); err != MPI_SUCCESS) return err;
  *seq = ++slots_[static_cast<std::size_t>(*slot)].issued;
  *retire_word = &retire_words_[*slot];
  return MPI_SUCCESS;
}

bool StreamWindow::ran(int slot, uint64_t seq) const { return reached(retired(slot), seq); }

void StreamWindow::count_program(bool access, bool exposure, const LaunchTally& launches) {
  if (access) ++stats_.access_epochs;
  if (exposure) ++stats_.exposure_epochs;
  stats_.launches.signal += launches.signal;
  stats_.launches.copy += launches.copy;
  stats_.launches.wait += launches.wait;
}

void StreamWindow::abandon_access() {
  recording_ = false;
  if (access_ == nullptr) return;
  access_->clear();
  if (spare_.size() < max_spare_plans()) spare_.push_back(std::move(access_));
  access_.reset();
}

int StreamWindow::drain() {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    StreamSlot& slot = slots_[i];
    if (slot.stream->backend() == stream::BackendKind::kHost &&
        static_cast<stream::HostStream&>(*slot.stream).executor().stopped())
      continue;  // freed by the user: everything it had queued has run
    const uint64_t marker = ++slot.issued;
    if (int err = slot.stream->write_value(&retire_words_[i], marker); err != MPI_SUCCESS)
      return err;
    ProgressWait wait;
    while (!reached(retired(static_cast<int>(i)), marker)) wait.pause();
  }
  int err = reclaim();
  // Signals to other nodes may be complete when issued (one-way adds behind
  // a fence): they land before the window's memory goes.
  if (view_.spans_nodes)
    if (int flushed = NetRma::flush(-1); err == MPI_SUCCESS) err = flushed;
  stop_progress_hook();
  slots_.clear();
  last_slot_ = -1;
  // A failure between nodes not reported yet is dropped here: MPI_Win_free
  // must free the window on every member whatever happened to its epochs.
  (void)remote_error();
  return err;
}

StreamStats StreamWindow::stats() {
  (void)reclaim();
  StreamStats out = stats_;
  out.pending_plans = in_flight_.size();
  if (remote_ != nullptr) out.trigger = remote_->stats();
  return out;
}

}  // namespace stmpi::dev::rma::st
