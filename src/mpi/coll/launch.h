// How an MPI collective call runs its schedule: to completion (blocking),
// handed to the engine (nonblocking, MPI_I*), or kept in an inactive
// persistent request (MPI_*_init) that MPI_Start replays.
#pragma once

#include <memory>
#include <utility>

#include <mpi.h>

#include "mpi/coll/mode.h"
#include "mpi/coll/sched/engine.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/comm/comm.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::coll {

// `build(Schedule&)` appends the collective's steps and returns an MPI
// error code; `request` is significant unless blocking.
template <class Build>
[[nodiscard]] int launch(Comm& comm, Mode mode, MPI_Request* request, Build&& build) {
  if (mode == Mode::kBlocking) {  // on the stack: no allocation for the schedule itself
    Schedule schedule(comm);
    if (int err = std::forward<Build>(build)(schedule); err != MPI_SUCCESS) return err;
    return schedule.run();
  }
  auto schedule = std::make_unique<Schedule>(comm, true);
  if (int err = std::forward<Build>(build)(*schedule); err != MPI_SUCCESS) return err;
  Request* req = request_create(mode == Mode::kNonblocking ? Request::Kind::kColl
                                                           : Request::Kind::kPrequestColl);
  req->schedule = schedule.release();
  req->comm = &comm;
  comm_retain(&comm);
  if (mode == Mode::kNonblocking) engine_start(req);
  *request = req->handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll
