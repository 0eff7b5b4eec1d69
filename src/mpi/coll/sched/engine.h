// The schedule engine: nonblocking and started persistent collectives in
// flight, advanced from the device's progress loop: advance_schedules() is
// registered as a progress hook (device/progress.h) while any schedule is
// in flight.
#pragma once

namespace stmpi::mpi {
struct Request;
}

namespace stmpi::mpi::coll {

class Schedule;

// Starts the schedule of a kColl or kPrequestColl request (req->schedule)
// and keeps it advancing until it completes; then req->dev.done is set
// and req->status.MPI_ERROR holds the schedule's error. A request the user
// freed while active is released at completion.
void engine_start(Request* req);

// Advances every schedule in flight; returns how many completed.
// Re-entrant calls (a schedule's own request tests) return 0 at once.
int advance_schedules(void* unused);

void schedule_destroy(Schedule* schedule);

}  // namespace stmpi::mpi::coll
