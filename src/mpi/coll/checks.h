// Checks only the collective implementation can make (the binding layer
// checks handles, counts and buffers), and the reduction set-up shared by
// the reducing collectives.
#pragma once

#include <mpi.h>

namespace stmpi::mpi {
struct Datatype;
struct Op;
}  // namespace stmpi::mpi

namespace stmpi::mpi::coll {

class Schedule;

// op/type compatibility (MPI_ERR_OP), and MPI_REPLACE / MPI_NO_OP refused.
[[nodiscard]] int check_op(const Op& op, const Datatype& type);
// sendbuf == recvbuf with data to move: MPI_ERR_BUFFER (use MPI_IN_PLACE).
[[nodiscard]] int check_distinct(const void* sendbuf, const void* recvbuf, MPI_Count count);

// Keeps op and type alive with the schedule and makes them its reduction.
void hold_reduction(Schedule& s, Op& op, Datatype& type);

}  // namespace stmpi::mpi::coll
