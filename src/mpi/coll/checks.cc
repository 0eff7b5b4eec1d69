#include "mpi/coll/checks.h"

#include "mpi/coll/coll.h"
#include "mpi/coll/op.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/errhan/error.h"

namespace stmpi::mpi::coll {

int check_op(const Op& op, const Datatype& type) {
  if (int err = op_check(op, type); err != MPI_SUCCESS) return err;
  if (op_is_rma_only(op))
    return errhan::make_error(MPI_ERR_OP, "%s is only valid in one-sided accumulates",
                              op_name(op.handle));
  return MPI_SUCCESS;
}

int check_distinct(const void* sendbuf, const void* recvbuf, MPI_Count count) {
  if (count > 0 && sendbuf == recvbuf && sendbuf != nullptr)
    return errhan::make_error(
        MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (%p); use MPI_IN_PLACE", recvbuf);
  return MPI_SUCCESS;
}

void hold_reduction(Schedule& s, Op& op, Datatype& type) {
  s.hold(&op);
  s.hold(&type);
  s.set_reduction(reduction_of(op, type));
}

}  // namespace stmpi::mpi::coll

namespace stmpi::mpi::coll {

Reduction reduction_of(const Op& op, const Datatype& type) {
  Reduction reduction;
  reduction.commutative = op.commutative;
  reduction.apply = [&op, &type](const void* in, void* inout, MPI_Count count) {
    return op_apply(op, in, inout, count, type);
  };
  return reduction;
}

}  // namespace stmpi::mpi::coll
