// MPICH's MPIX_ calls that programs and MPICH's Fortran library use, with
// MPICH's meaning as far as this library can give it honestly:
//
// - Fault tolerance (ULFM). This library detects no process failure (a
//   failed process ends the job), so a communicator never has failed
//   processes: MPIX_Comm_failure_ack has nothing to acknowledge,
//   MPIX_Comm_failure_get_acked gives MPI_GROUP_EMPTY, MPIX_Comm_agree is the
//   bitwise AND of the flags over the communicator (an intracommunicator),
//   and MPIX_Comm_shrink is a
//   new communicator of all the processes (no attributes copied).
//   MPIX_Comm_revoke cannot be honoured (no revocation reaches pending
//   operations of the other processes): MPI_ERR_UNSUPPORTED_OPERATION.
// - MPIX_GPU_query_support: whether MPI calls take GPU memory as buffers.
//   They do not in this build (GPU memory takes part only in stream-triggered
//   RMA epochs), so the answer is 0 for every GPU kind; an unknown kind is
//   MPI_ERR_ARG. (MPIX_Query_cuda_support and its companions, which return
//   the answer instead of an error code, are in src/binding/mpich_hooks.cc.)
#include <mpi.h>

#include "mpi/coll/impl_coll.h"
#include "mpi/coll/mode.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/mpix/impl_mpix.h"

namespace stmpi::impl {

int mpix_comm_revoke(mpi::Comm& comm) {
  return mpi::errhan::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                                 "MPIX_Comm_revoke: communicator 0x%x cannot be revoked (this "
                                 "library detects no process failures; a failed process ends "
                                 "the job)",
                                 static_cast<unsigned>(comm.handle));
}

int mpix_comm_shrink(mpi::Comm& comm, MPI_Comm* newcomm) {
  int rank = 0;
  if (int err = comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  return comm_split(comm, 0, rank, newcomm);
}

int mpix_comm_failure_ack(mpi::Comm&) { return MPI_SUCCESS; }

int mpix_comm_failure_get_acked(mpi::Comm&, MPI_Group* failedgrp) {
  *failedgrp = MPI_GROUP_EMPTY;
  return MPI_SUCCESS;
}

int mpix_comm_agree(mpi::Comm& comm, int* flag) {
  if (comm.is_inter())
    return mpi::errhan::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                                   "MPIX_Comm_agree: communicator 0x%x is an intercommunicator",
                                   static_cast<unsigned>(comm.handle));
  int in = *flag;
  return allreduce_any(&in, flag, 1, *mpi::datatype_get(MPI_INT), *mpi::op_get(MPI_BAND), comm,
                       mpi::coll::Mode::kBlocking, nullptr);
}

int mpix_gpu_query_support(int gpu_type, int* is_supported) {
  if (gpu_type != MPIX_GPU_SUPPORT_CUDA && gpu_type != MPIX_GPU_SUPPORT_ZE &&
      gpu_type != MPIX_GPU_SUPPORT_HIP)
    return mpi::errhan::make_error(
        MPI_ERR_ARG, "gpu_type=%d is not MPIX_GPU_SUPPORT_CUDA, _ZE or _HIP", gpu_type);
  *is_supported = 0;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
