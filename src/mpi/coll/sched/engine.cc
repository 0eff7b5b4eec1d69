#include "mpi/coll/sched/engine.h"

#include <vector>

#include "mpi/coll/sched/schedule.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::coll {
namespace {

std::vector<Request*> g_active;
bool g_advancing = false;

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
  if (done) complete(req);
  else g_active.push_back(req);
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
  g_advancing = false;
  return completed;
}

void poll_schedules() {
  if (!g_active.empty() && !g_advancing) (void)advance_schedules(nullptr);
}

void schedule_destroy(Schedule* schedule) { delete schedule; }

}  // namespace stmpi::mpi::coll
