// StreamWindow: the stream-triggered state of one window at this process:
// epoch numbers per peer, the open exposure and access epochs, plans the
// streams have not executed yet, the streams used, and statistics. The MPI
// layer (src/mpi/mpix) creates it on the window's first stream epoch and
// checks the MPI rules (groups, epoch order, arguments); this class enqueues
// through its executor and never waits for a stream, except to bound the
// plans in flight (STMPI_ST_MAX_PENDING_EPOCHS) and in drain().
//
// Plan lifetime: a plan is kept from MPI_Win_start until its stream has run
// the epoch. Each stream the window uses has a retire word (host memory of
// this process); the executor makes the stream store the plan's issue
// number there as the epoch's last step, and every later call recycles the
// plans whose number has been reached. So a program that enqueues any
// number of iterations holds plans only for the epochs still queued.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "device/rma/st/epoch_plan.h"
#include "device/rma/st/executor.h"
#include "device/rma/st/triggered_op_executor.h"
#include "stream/host_stream.h"
#include "stream/stream.h"

namespace stmpi::dev::rma::st {

// What a StreamWindow needs to know of its window.
struct WindowView {
  int rank = 0;
  int nranks = 0;
  SignalWords words;
  // The window segment as mapped here (signal words and window memory).
  char* segment = nullptr;
  std::size_t segment_bytes = 0;
  // Windows with members on other nodes: every rank's control block as
  // reached from here (kNet for members on other nodes), which ranks are
  // remote, and the offsets of stream_post[0] / stream_complete[0] in a
  // control block.
  bool spans_nodes = false;
  std::vector<Region> control;
  std::vector<bool> remote;
  uint64_t post0 = 0;
  uint64_t complete0 = 0;
};

struct StreamStats {
  uint64_t access_epochs = 0;    // closed by MPIX_Win_complete_stream
  uint64_t exposure_epochs = 0;  // closed by MPIX_Win_wait_stream
  LaunchTally launches;
  uint64_t puts = 0;
  uint64_t gets = 0;
  uint64_t accumulates = 0;
  uint64_t pending_plans = 0;  // access epochs the streams have not executed yet
  uint64_t throttled = 0;      // times complete waited for the stream (plan limit)
  TriggerStats trigger;        // epochs between nodes (triggered_op_executor.h)
};

class StreamWindow {
 public:
  // MPI_ERR_NO_MEM when the retire words cannot be allocated.
  [[nodiscard]] static int create(WindowView view, std::unique_ptr<StreamWindow>* out);
  // Call drain() first: plans may still be in use by a stream otherwise.
  ~StreamWindow();
  StreamWindow(const StreamWindow&) = delete;
  StreamWindow& operator=(const StreamWindow&) = delete;

  // The stream arguments below may be borrowed references (no shared
  // ownership held by the caller): the window takes shared ownership of a
  // stream the first time it sees it (Stream::shared_from_this) and keeps
  // it until drain().
  //
  // Target side. `origins` are window ranks, each at most once. After a
  // failure of post or wait nothing was enqueued and the state is unchanged.
  [[nodiscard]] int post(std::span<const int> origins, stream::Stream& stream);
  [[nodiscard]] int wait(stream::Stream& stream);
  bool exposure_open() const { return exposure_open_; }

  // Origin side. `targets` are window ranks, each at most once.
  [[nodiscard]] int start(std::span<const int> targets);
  // Records one put, get or accumulate of the open access epoch. The
  // recorded copy's run and piece indices are set here from `runs` and
  // `pieces` (those of `op` are ignored).
  [[nodiscard]] int record(const DeferredOp& op, std::span<const Run> runs,
                           std::span<const OriginPiece> pieces);
  // Closes the access epoch, also after a failure (part of it may be queued).
  [[nodiscard]] int complete(stream::Stream& stream);
  bool access_open() const { return access_ != nullptr; }
  // Drops an access epoch that failed before it was enqueued.
  void abandon_access();

  // --- Persistent epochs (persistent_epoch.h) ---
  // Opens an access epoch whose calls are recorded for a persistent epoch:
  // no epoch numbers are taken, and calls to other nodes are only checked
  // (each start posts them). end_recording() closes it and hands the plan
  // over (targets, calls, runs, pieces).
  [[nodiscard]] int begin_recording(std::span<const int> targets);
  bool recording() const { return recording_; }
  std::unique_ptr<AccessPlan> end_recording();
  // The stream epoch counts by peer, which persistent epochs advance too.
  uint64_t& accesses_to(int target) { return accesses_to_[static_cast<std::size_t>(target)]; }
  uint64_t& exposures_to(int origin) { return exposures_to_[static_cast<std::size_t>(origin)]; }
  const WindowView& view() const { return view_; }
  // The slot of `stream` and a new issue number on it: the work enqueued
  // next must end by storing `*seq` to `*retire_word`; ran() tells when the
  // stream has passed it.
  [[nodiscard]] int issue(stream::Stream& stream, int* slot, uint64_t* seq, uint64_t** retire_word);
  bool ran(int slot, uint64_t seq) const;
  // A persistent epoch's start enqueued as one program: its epochs and
  // launches join the statistics.
  void count_program(bool access, bool exposure, const LaunchTally& launches);

  // Waits until every stream the window used has run all of its work for
  // the window (streams freed meanwhile ran it when they were freed).
  [[nodiscard]] int drain();

  // Statistics so far; recycles executed plans first.
  StreamStats stats();
  const EpochExecutor& executor() const { return *executor_; }
  // The executor of the remote part (windows spanning nodes), else null.
  TriggeredOpExecutor* remote() const { return remote_.get(); }

 private:
  struct StreamSlot {
    std::shared_ptr<stream::Stream> stream;
    uint64_t issued = 0;  // issue numbers handed out on this slot
  };

  explicit StreamWindow(WindowView view);
  [[nodiscard]] int slot_of(stream::Stream& stream, int* slot);
  uint64_t retired(int slot) const;
  // Recycles executed plans; returns the first failure one reported.
  [[nodiscard]] int reclaim();
  [[nodiscard]] int throttle();
  // Progress hook: ready library operations of the window's host streams.
  static int run_ready_host_ops(void* window);
  void stop_progress_hook();

  WindowView view_;
  std::unique_ptr<EpochExecutor> executor_;
  std::unique_ptr<TriggeredOpExecutor> remote_;  // declared after: destroyed first
  // Reclaims the remote part's resources; its first failure, reported once.
  [[nodiscard]] int remote_error();
  // One retire word per stream slot, in a page of its own (GPU-registrable).
  uint64_t* retire_words_ = nullptr;
  std::vector<StreamSlot> slots_;
  int last_slot_ = -1;  // slot_of's last answer: most programs use one stream
  // The host streams among the slots, which MPI progress advances
  // (STMPI_STREAM_PROGRESS), and the hook doing it (-1: none).
  std::vector<stream::HostStream*> host_streams_;
  int progress_hook_ = -1;
  std::vector<uint64_t> exposures_to_;  // by origin: exposure epochs opened to it
  std::vector<uint64_t> accesses_to_;   // by target: access epochs opened to it
  bool exposure_open_ = false;
  bool recording_ = false;  // access_ is being recorded for a persistent epoch
  ExposurePlan exposure_;
  std::unique_ptr<AccessPlan> access_;  // the open access epoch
  // Enqueued, not yet known executed, in enqueue order. Plans retire in
  // order on each stream, so reclaim() only looks at the oldest.
  std::deque<std::unique_ptr<AccessPlan>> in_flight_;
  std::vector<std::unique_ptr<AccessPlan>> spare_;  // recycled
  StreamStats stats_;
};

// Stream slots per window (one retire word each, in one page).
inline constexpr std::size_t kMaxStreamsPerWindow = 512;

}  // namespace stmpi::dev::rma::st
