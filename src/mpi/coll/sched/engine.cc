#include "mpi/coll/sched/engine.h"

#include <vector>

#include "device/progress.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::coll {
namespace {

std::vector<Request*> g_active;
bool g_advancing = false;
int g_hook = -1;  // the device progress hook, registered while schedules are in flight

void complete(Request* req) {
  status_set_empty(&req->status);
  req->status.MPI_ERROR = req->schedule->error();
  req->finished = true;  // the status above is final
  req->dev.done.store(true, std::memory_order_release);
  if (req->freed_by_user) request_free(req);
}

}  // namespace

void engine_start(Request* req) {
  req->finished = false;
  req->dev.done.store(false, std::memory_order_relaxed);
  const bool was_advancing = g_advancing;
  g_advancing = true;  // the first round's tests must not re-enter
  req->schedule->start();
  const bool done = req->schedule->advance();
  g_advancing = was_advancing;
  if (done) {
    complete(req);
    return;
  }
  g_active.push_back(req);
  if (g_hook < 0) g_hook = dev::add_progress_hook(advance_schedules, nullptr);
}

int advance_schedules(void*) {
  if (g_advancing || g_active.empty()) return 0;
  g_advancing = true;
  int completed = 0;
  // Oldest first; completed schedules leave the list in place.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < g_active.size(); ++i) {
    Request* req = g_active[i];
    if (req->schedule->advance()) {
      complete(req);
      ++completed;
    } else {
      g_active[kept++] = req;
    }
  }
  g_active.resize(kept);
  if (g_active.empty() && g_hook >= 0) {
    dev::remove_progress_hook(g_hook);
    g_hook = -1;
  }
  g_advancing = false;
  return completed;
}

void schedule_destroy(Schedule* schedule) { delete schedule; }

}  // namespace stmpi::mpi::coll
