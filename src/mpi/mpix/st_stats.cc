// The stream-triggered statistics of the process as MPI_T performance
// variables (util/pvar.h): windows already freed plus the live ones; and
// MPIX_Win_get_lock_stats(_max), a window's passive-lock statistics.
#include <memory>

#include "device/rma/st/stream_window.h"
#include "mpi/mpix/impl_mpix.h"
#include "mpi/mpix/win_stream.h"
#include "mpi/rma/win.h"
#include "util/pvar.h"

namespace stmpi::mpi::mpix {
namespace {

dev::rma::st::StreamStats g_freed;

void add(dev::rma::st::StreamStats& total, const dev::rma::st::StreamStats& more) {
  total.access_epochs += more.access_epochs;
  total.exposure_epochs += more.exposure_epochs;
  total.launches.signal += more.launches.signal;
  total.launches.copy += more.launches.copy;
  total.launches.wait += more.launches.wait;
  total.puts += more.puts;
  total.gets += more.gets;
  total.accumulates += more.accumulates;
  total.pending_plans += more.pending_plans;
  total.throttled += more.throttled;
  total.trigger.posted += more.trigger.posted;
  total.trigger.fired += more.trigger.fired;
  total.trigger.software_fired += more.trigger.software_fired;
  total.trigger.throttle_stalls += more.trigger.throttle_stalls;
  total.trigger.throttle_ns += more.trigger.throttle_ns;
  total.trigger.throttle_reclaimed += more.trigger.throttle_reclaimed;
  total.trigger.throttle_overlapped += more.trigger.throttle_overlapped;
}

dev::rma::st::StreamStats totals() {
  dev::rma::st::StreamStats total = g_freed;
  win_table().for_each([&total](const Win& win) {
    if (win.stream != nullptr) add(total, win.stream->stats());
  });
  return total;
}

const util::Pvar kPvars[] = {
    {"access_epochs", util::Pvar::Class::kCounter, [] { return totals().access_epochs; },
     "stream access epochs closed by MPIX_Win_complete_stream"},
    {"exposure_epochs", util::Pvar::Class::kCounter, [] { return totals().exposure_epochs; },
     "stream exposure epochs closed by MPIX_Win_wait_stream"},
    {"signal_launches", util::Pvar::Class::kCounter, [] { return totals().launches.signal; },
     "merged signal operations enqueued on streams (one per epoch, never one per peer)"},
    {"copy_launches", util::Pvar::Class::kCounter, [] { return totals().launches.copy; },
     "merged copy operations enqueued on streams"},
    {"wait_launches", util::Pvar::Class::kCounter, [] { return totals().launches.wait; },
     "merged wait operations enqueued on streams"},
    {"puts", util::Pvar::Class::kCounter, [] { return totals().puts; },
     "MPI_Put calls recorded in stream access epochs"},
    {"gets", util::Pvar::Class::kCounter, [] { return totals().gets; },
     "MPI_Get calls recorded in stream access epochs"},
    {"accumulates", util::Pvar::Class::kCounter, [] { return totals().accumulates; },
     "accumulate calls recorded in stream access epochs"},
    {"pending_plans", util::Pvar::Class::kLevel, [] { return totals().pending_plans; },
     "stream access epochs enqueued that their streams have not executed yet"},
    {"throttled", util::Pvar::Class::kCounter, [] { return totals().throttled; },
     "times MPIX_Win_complete_stream waited for a stream (STMPI_ST_MAX_PENDING_EPOCHS)"},
    {"triggered_posted", util::Pvar::Class::kCounter, [] { return totals().trigger.posted; },
     "triggered operations posted by stream epochs between nodes"},
    {"triggered_fired", util::Pvar::Class::kCounter, [] { return totals().trigger.fired; },
     "triggered operations fired and completed"},
    {"software_fired", util::Pvar::Class::kCounter, [] { return totals().trigger.software_fired; },
     "triggered operations fired by the library's software trigger engine"},
    {"trigger_counters_in_use", util::Pvar::Class::kLevel,
     [] { return process_trigger_stats().counters_in_use; },
     "trigger counters held by stream epochs between nodes (STMPI_ST_COUNTERS)"},
    {"trigger_counters_max", util::Pvar::Class::kHighwatermark,
     [] { return process_trigger_stats().counters_max_in_use; },
     "the most trigger counters held at once"},
    {"throttle_stalls", util::Pvar::Class::kCounter,
     [] { return totals().trigger.throttle_stalls; },
     "calls that waited for trigger counters or triggered-op slots (STMPI_ST_THROTTLE)"},
    {"throttle_ns", util::Pvar::Class::kCounter, [] { return totals().trigger.throttle_ns; },
     "nanoseconds calls waited for trigger counters or triggered-op slots"},
    {"throttle_reclaimed", util::Pvar::Class::kCounter,
     [] { return totals().trigger.throttle_reclaimed; },
     "epochs whose counters and slots throttle waits reclaimed"},
    {"throttle_overlapped", util::Pvar::Class::kCounter,
     [] { return totals().trigger.throttle_overlapped; },
     "throttle waits that ended while earlier epochs still held resources (adaptive reuse)"},
};
const util::PvarTable kPvarTable{"st", kPvars};
const util::PvarRegistration kPvarRegistration{&kPvarTable};

}  // namespace

dev::rma::st::TriggerStats process_trigger_stats() {
  dev::rma::st::TriggerStats t = totals().trigger;
  dev::rma::st::process_counters(&t.counters_in_use, &t.counters_max_in_use);
  return t;
}

void stream_stats_add_freed(const dev::rma::st::StreamStats& stats) {
  dev::rma::st::StreamStats freed = stats;
  freed.pending_plans = 0;  // drained before the window is freed
  add(g_freed, freed);
}

}  // namespace stmpi::mpi::mpix

namespace stmpi::impl {

// MPIX_Win_get_lock_stats(_max): the wrappers (maint/mpix.spec) have checked
// the window and the output pointers.
int mpix_win_get_lock_stats(mpi::Win& win, long long* acquisitions, long long* remote_atomics) {
  const dev::rma::lock::LockStats& s = win.device.locks().stats();
  *acquisitions = s.acquisitions;
  *remote_atomics = s.remote_ops;
  return MPI_SUCCESS;
}

int mpix_win_get_lock_stats_max(mpi::Win& win, long long* max_remote_atomics, long long* waited) {
  const dev::rma::lock::LockStats& s = win.device.locks().stats();
  *max_remote_atomics = s.max_remote_ops;
  *waited = s.waited;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
