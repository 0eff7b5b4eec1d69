#include "mpi/mpix/win_stream.h"

#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include <mpi.h>

#include "device/device.h"
#include "device/rma/st/settings.h"
#include "device/rma/st/stream_window.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/target.h"
#include "mpi/rma/win.h"
#include "stream/registry.h"

namespace stmpi::mpi::mpix {
namespace {

using dev::rma::st::DeferredKind;
using dev::rma::st::DeferredOp;
using dev::rma::st::OriginPiece;
using dev::rma::st::StreamWindow;
using errhan::make_error;

const char* flavor_name(int flavor) {
  switch (flavor) {
    case MPI_WIN_FLAVOR_CREATE: return "MPI_Win_create";
    case MPI_WIN_FLAVOR_ALLOCATE: return "MPI_Win_allocate";
    case MPI_WIN_FLAVOR_DYNAMIC: return "MPI_Win_create_dynamic";
    case MPI_WIN_FLAVOR_SHARED: return "MPI_Win_allocate_shared";
  }
  return "an unknown call";
}

// Streams reach window memory by plain stores and copies, so every process
// must map it: the window segment holds it only for the allocate flavors.
// Between nodes the members on other nodes are reached by triggered
// network operations on their registered memory (device/rma/st), the
// members of this node as inside a node: MPI_Win_allocate is the flavor
// that gives both.
int check_flavor(const Win& win, const char* function) {
  if (win.device.spans_nodes()) {
    if (win.flavor == MPI_WIN_FLAVOR_ALLOCATE) return MPI_SUCCESS;
    return make_error(MPI_ERR_RMA_FLAVOR,
                      "%s: win=0x%x has members on other nodes and was made by %s; "
                      "stream-triggered epochs between nodes need MPI_Win_allocate (memory the "
                      "node's processes map and the network module registered)",
                      function, static_cast<unsigned>(win.handle), flavor_name(win.flavor));
  }
  if (win.flavor == MPI_WIN_FLAVOR_ALLOCATE || win.flavor == MPI_WIN_FLAVOR_SHARED)
    return MPI_SUCCESS;
  return make_error(MPI_ERR_RMA_FLAVOR,
                    "%s: win=0x%x was made by %s; stream-triggered epochs need a window whose "
                    "memory every process maps (MPI_Win_allocate or MPI_Win_allocate_shared)",
                    function, static_cast<unsigned>(win.handle), flavor_name(win.flavor));
}

// The stream behind a user's handle, borrowed (registry.h): the window
// takes shared ownership when it first sees it, before anything could run
// user code; resolve_borrowed() names the pointer and the backend in its
// MPI_ERR_ARG.
int resolve_stream(void* handle, stream::Stream** out) {
  return stream::resolve_borrowed(handle, out);
}

int stream_window(Win& win, StreamWindow** out) {
  if (win.stream == nullptr) {
    std::vector<char*> control(static_cast<std::size_t>(win.nranks));
    for (int r = 0; r < win.nranks; ++r) control[static_cast<std::size_t>(r)] = win.control_of(r);
    dev::rma::st::WindowView view;
    view.rank = win.rank;
    view.nranks = win.nranks;
    view.words =
        dev::rma::st::SignalWords(std::move(control), win.device.layout().stream_post_signal(0),
                                  win.device.layout().stream_complete_signal(0));
    view.segment = win.device.segment_base();
    view.segment_bytes = win.device.segment_bytes();
    if (win.device.spans_nodes()) {
      view.spans_nodes = true;
      view.post0 = win.device.layout().stream_post_signal(0);
      view.complete0 = win.device.layout().stream_complete_signal(0);
      for (int r = 0; r < win.nranks; ++r) {
        const dev::rma::WindowTarget& t = win.device.target(r);
        view.control.push_back(t.control);
        view.remote.push_back(t.memory.kind == dev::rma::RegionKind::kNet);
      }
    }
    std::unique_ptr<StreamWindow> created;
    if (int err = StreamWindow::create(std::move(view), &created); err != MPI_SUCCESS) return err;
    win.stream = std::move(created);
  }
  *out = win.stream.get();
  return MPI_SUCCESS;
}

// The origin buffer of a noncontiguous type as pieces of memory in pack
// order (record() takes a contiguous one as a single piece); nothing is read.
void origin_pieces(const void* buf, MPI_Count count, const Datatype& type,
                   std::vector<OriginPiece>* out) {
  out->clear();
  char* base = const_cast<char*>(static_cast<const char*>(buf));
  for (MPI_Count i = 0; i < count; ++i) {
    char* instance = base + i * type.extent;
    for (const DataBlock& block : type.layout.blocks) {
      for (MPI_Count k = 0; k < block.count; ++k) {
        char* at = instance + block.disp + k * block.stride;
        const auto bytes = static_cast<uint64_t>(block.len);
        if (bytes == 0) continue;
        if (!out->empty() && out->back().addr + out->back().bytes == at) out->back().bytes += bytes;
        else out->push_back({at, bytes});
      }
    }
  }
}

int record(Win& win, DeferredOp& op, const rma::TargetSpan& span, const void* origin,
           MPI_Count count, const Datatype& type) {
  op.region = span.region;
  op.bytes = static_cast<uint64_t>(count * type.size);
  if (type.contiguous) {  // one piece: no list to build
    const OriginPiece piece{const_cast<char*>(static_cast<const char*>(origin)) + type.true_lb,
                            op.bytes};
    return win.stream->record(op, span.runs.span(), {&piece, 1});
  }
  thread_local std::vector<OriginPiece> pieces;
  origin_pieces(origin, count, type, &pieces);
  return win.stream->record(op, span.runs.span(), pieces);
}

void print_stats(const Win& win, const dev::rma::st::StreamStats& s) {
  std::fprintf(stderr,
               "STMPI st stats (rank %d, window 0x%x): %llu access + %llu exposure epochs; "
               "launches: %llu signal, %llu copy, %llu wait; %llu puts, %llu gets, %llu "
               "accumulates; %llu throttled\n",
               dev::world_rank(), static_cast<unsigned>(win.handle),
               static_cast<unsigned long long>(s.access_epochs),
               static_cast<unsigned long long>(s.exposure_epochs),
               static_cast<unsigned long long>(s.launches.signal),
               static_cast<unsigned long long>(s.launches.copy),
               static_cast<unsigned long long>(s.launches.wait),
               static_cast<unsigned long long>(s.puts), static_cast<unsigned long long>(s.gets),
               static_cast<unsigned long long>(s.accumulates),
               static_cast<unsigned long long>(s.throttled));
  if (win.stream->remote() == nullptr) return;
  const dev::rma::st::TriggerStats& t = s.trigger;
  std::fprintf(stderr,
               "STMPI st stats (rank %d, window 0x%x): triggered ops %llu posted, %llu fired "
               "(%llu by the software engine); counters %llu in use, %llu at most; %llu "
               "throttle stalls, %.3f ms stalled, %llu epochs reclaimed by them, %llu ended "
               "with earlier epochs still held\n",
               dev::world_rank(), static_cast<unsigned>(win.handle),
               static_cast<unsigned long long>(t.posted), static_cast<unsigned long long>(t.fired),
               static_cast<unsigned long long>(t.software_fired),
               static_cast<unsigned long long>(t.counters_in_use),
               static_cast<unsigned long long>(t.counters_max_in_use),
               static_cast<unsigned long long>(t.throttle_stalls), t.throttle_ns / 1e6,
               static_cast<unsigned long long>(t.throttle_reclaimed),
               static_cast<unsigned long long>(t.throttle_overlapped));
}

}  // namespace

int win_post_stream(Group& group, Win& win, void* stream_handle) {
  constexpr const char* kFunction = "MPIX_Win_post_stream";
  if (int err = check_flavor(win, kFunction)) return err;
  WinEpochs& e = win.epoch;
  if (e.posted)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: an exposure epoch is already open (close it with %s first)", kFunction,
                      e.stream_exposure ? "MPIX_Win_wait_stream" : "MPI_Win_wait or MPI_Win_test");
  if (e.locks_held != 0 || e.lock_all)
    return make_error(MPI_ERR_RMA_SYNC, "%s: the window has %s open", kFunction,
                      e.lock_all ? "a passive-target epoch (MPI_Win_lock_all)"
                                 : "a passive-target epoch (MPI_Win_lock)");
  if (e.fence && e.fence_used)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: RMA calls were made in the current fence epoch; close it with "
                      "MPI_Win_fence (MPI_MODE_NOSUCCEED) first",
                      kFunction);
  stream::Stream* stream = nullptr;
  if (int err = resolve_stream(stream_handle, &stream)) return err;
  // No exposure epoch is open, so post_ranks is unused: the ranks go there
  // directly and the vector keeps its capacity from epoch to epoch (no
  // allocation per post).
  std::vector<int>& origins = e.post_ranks;
  int err = rma::ranks_of(win, group, kFunction, &origins);
  StreamWindow* sw = nullptr;
  if (err == MPI_SUCCESS) err = stream_window(win, &sw);
  if (err == MPI_SUCCESS) err = sw->post(origins, *stream);
  if (err != MPI_SUCCESS) {
    origins.clear();
    return err;
  }
  e.fence = false;
  e.posted = true;
  e.stream_exposure = true;
  return MPI_SUCCESS;
}

int win_complete_stream(Win& win, void* stream_handle) {
  constexpr const char* kFunction = "MPIX_Win_complete_stream";
  WinEpochs& e = win.epoch;
  if (!e.started)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s without a matching MPI_Win_start(group, MPIX_MODE_STREAM, win) (no "
                      "access epoch is open)",
                      kFunction);
  if (!e.stream_access)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: the access epoch was opened by MPI_Win_start without MPIX_MODE_STREAM; "
                      "close it with MPI_Win_complete",
                      kFunction);
  if (win_epoch_recording(win))
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: the access epoch of win=0x%x records a persistent epoch "
                      "(MPIX_Win_epoch_init); close it with MPIX_Win_epoch_commit",
                      kFunction, static_cast<unsigned>(win.handle));
  stream::Stream* stream = nullptr;
  if (int err = resolve_stream(stream_handle, &stream)) return err;
  const int err = win.stream->complete(*stream);
  for (int target : e.start_ranks) e.start_state[target] = kNotStarted;
  e.started = false;
  e.stream_access = false;
  e.start_ranks.clear();
  return err;
}

int win_wait_stream(Win& win, void* stream_handle) {
  constexpr const char* kFunction = "MPIX_Win_wait_stream";
  WinEpochs& e = win.epoch;
  if (!e.posted)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s without a matching MPIX_Win_post_stream (no exposure epoch is open)",
                      kFunction);
  if (!e.stream_exposure)
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: the exposure epoch was opened by MPI_Win_post; close it with "
                      "MPI_Win_wait or MPI_Win_test",
                      kFunction);
  stream::Stream* stream = nullptr;
  if (int err = resolve_stream(stream_handle, &stream)) return err;
  if (int err = win.stream->wait(*stream)) return err;  // the epoch stays open
  e.posted = false;
  e.stream_exposure = false;
  e.post_ranks.clear();
  return MPI_SUCCESS;
}

int stream_start_check(const Win& win) { return check_flavor(win, "MPI_Win_start"); }

int stream_check_flavor(const Win& win, const char* function) {
  return check_flavor(win, function);
}

int stream_window_of(Win& win, StreamWindow** out) { return stream_window(win, out); }

int stream_start(Win& win) {
  WinEpochs& e = win.epoch;
  StreamWindow* sw = nullptr;
  int err = stream_window(win, &sw);
  if (err == MPI_SUCCESS) err = sw->start(e.start_ranks);
  if (err != MPI_SUCCESS) {
    for (int target : e.start_ranks) e.start_state[target] = kNotStarted;
    e.started = false;
    e.start_ranks.clear();
    return err;
  }
  // The stream waits for the posts; RMA calls must not.
  for (int target : e.start_ranks) e.start_state[target] = kPostSeen;
  e.stream_access = true;
  return MPI_SUCCESS;
}

int stream_record_put(Win& win, int target, const rma::TargetSpan& span, const void* origin,
                      MPI_Count count, const Datatype& type) {
  DeferredOp op;
  op.kind = DeferredKind::kPut;
  op.target = target;
  return record(win, op, span, origin, count, type);
}

int stream_record_get(Win& win, int target, const rma::TargetSpan& span, void* origin,
                      MPI_Count count, const Datatype& type) {
  DeferredOp op;
  op.kind = DeferredKind::kGet;
  op.target = target;
  return record(win, op, span, origin, count, type);
}

int stream_record_accumulate(Win& win, int target, const rma::TargetSpan& span, const void* origin,
                             MPI_Count count, const Datatype* type,
                             const dev::rma::AccumulateOp& acc, bool wants_result,
                             const char* function) {
  if (wants_result) return stream_unsupported(win, function);
  if (type == nullptr) return MPI_SUCCESS;  // MPI_NO_OP without a result changes nothing
  DeferredOp op;
  op.kind = DeferredKind::kAccumulate;
  op.target = target;
  op.acc = acc;
  return record(win, op, span, origin, count, *type);
}

int stream_unsupported(const Win& win, const char* function) {
  return make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                    "%s in a stream access epoch (MPI_Win_start with MPIX_MODE_STREAM) of "
                    "win=0x%x: only MPI_Put, MPI_Get and MPI_Accumulate are deferred to the stream",
                    function, static_cast<unsigned>(win.handle));
}

int check_not_stream_access(const Win& win, const char* function) {
  if (!win.epoch.stream_access) return MPI_SUCCESS;
  if (win_epoch_recording(win))
    return make_error(MPI_ERR_RMA_SYNC,
                      "%s: the access epoch records a persistent epoch (MPIX_Win_epoch_init); "
                      "close it with MPIX_Win_epoch_commit",
                      function);
  return make_error(MPI_ERR_RMA_SYNC,
                    "%s: the access epoch was opened with MPIX_MODE_STREAM; close it with "
                    "MPIX_Win_complete_stream",
                    function);
}

int check_not_stream_exposure(const Win& win, const char* function) {
  if (!win.epoch.stream_exposure) return MPI_SUCCESS;
  return make_error(MPI_ERR_RMA_SYNC,
                    "%s: the exposure epoch was opened by MPIX_Win_post_stream; close it with "
                    "MPIX_Win_wait_stream",
                    function);
}

int stream_free(Win& win) {
  if (win.stream == nullptr) return MPI_SUCCESS;
  win_epochs_window_freed(win);
  if (int err = win.stream->drain(); err != MPI_SUCCESS) return err;
  const dev::rma::st::StreamStats stats = win.stream->stats();
  if (dev::rma::st::settings().print_stats) print_stats(win, stats);
  stream_stats_add_freed(stats);
  win.stream.reset();
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::mpix
