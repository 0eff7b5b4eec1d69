// MPI_Allreduce.
//
// Commutative operations: recursive doubling. With p the largest power of
// two <= n and r = n - p, the first 2r ranks pair up (2i sends its data to
// 2i+1, which combines it) so that p processes remain; they exchange and
// combine with partner newrank XOR 2^k for k = 0 .. log2(p)-1; finally
// each 2i+1 hands the result back to 2i. Every combine puts the operand
// from the lower ranks on the left, so all processes compute the same
// expression and get bit-identical results even for floating point.
//
// Non-commutative operations: MPI_Reduce to rank 0 (which keeps operand
// order) followed by MPI_Bcast.
#include <utility>

#include "binding/gen/impl.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/pt2pt/pt2pt.h"

namespace stmpi::mpi::coll {
namespace {

int recursive_doubling(void* recvbuf, MPI_Count count, Datatype& type, const Reduction& reduction,
                       Comm& comm) {
  const int n = comm.size;
  const int rank = comm.rank;
  const uint32_t context = comm.coll_context_id();
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;

  ScratchBuffer scratch(count, type);
  void* acc = recvbuf;
  void* spare = scratch.get();

  // Fold the first 2*rem ranks pairwise onto the odd ones.
  int newrank;
  if (rank < 2 * rem) {
    if (rank % 2 == 0) {
      if (int err = pt2pt::send(acc, count, type, rank + 1, kTagAllreduce, comm, context,
                                dev::SendMode::kStandard);
          err != MPI_SUCCESS)
        return err;
      newrank = -1;
    } else {
      if (int err = pt2pt::recv(spare, count, type, rank - 1, kTagAllreduce, comm, context,
                                MPI_STATUS_IGNORE);
          err != MPI_SUCCESS)
        return err;
      if (int err = reduction.apply(spare, acc, count); err != MPI_SUCCESS) return err;
      newrank = rank / 2;
    }
  } else {
    newrank = rank - rem;
  }

  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int partner_new = newrank ^ mask;
      const int partner = partner_new < rem ? partner_new * 2 + 1 : partner_new + rem;
      if (int err = pt2pt::sendrecv(acc, count, type, partner, kTagAllreduce, spare, count, type,
                                    partner, kTagAllreduce, comm, context, MPI_STATUS_IGNORE);
          err != MPI_SUCCESS)
        return err;
      if (partner_new < newrank) {
        if (int err = reduction.apply(spare, acc, count); err != MPI_SUCCESS) return err;
      } else {
        if (int err = reduction.apply(acc, spare, count); err != MPI_SUCCESS) return err;
        std::swap(acc, spare);
      }
    }
  }

  // Hand the result back to the ranks folded away.
  if (rank < 2 * rem) {
    if (rank % 2 == 1) {
      if (int err = pt2pt::send(acc, count, type, rank - 1, kTagAllreduce, comm, context,
                                dev::SendMode::kStandard);
          err != MPI_SUCCESS)
        return err;
    } else {
      return pt2pt::recv(recvbuf, count, type, rank + 1, kTagAllreduce, comm, context,
                         MPI_STATUS_IGNORE);
    }
  }
  if (acc != recvbuf) copy_same(acc, recvbuf, count, type);
  return MPI_SUCCESS;
}

}  // namespace

int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
              const Reduction& reduction, Comm& comm) {
  if (count == 0) return MPI_SUCCESS;
  if (!reduction.commutative) {
    // Reduce keeps operand order; rank 0 is its natural root.
    const void* send = sendbuf;
    if (sendbuf == MPI_IN_PLACE && comm.rank != 0) send = recvbuf;
    if (int err = reduce(send, recvbuf, count, type, reduction, 0, comm); err != MPI_SUCCESS)
      return err;
    return bcast(recvbuf, count, type, 0, comm);
  }
  if (sendbuf != MPI_IN_PLACE) copy_same(sendbuf, recvbuf, count, type);
  if (comm.size == 1) return MPI_SUCCESS;
  return recursive_doubling(recvbuf, count, type, reduction, comm);
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

int allreduce_any(const void* sendbuf, void* recvbuf, MPI_Count count, mpi::Datatype& datatype,
                  mpi::Op& op, mpi::Comm& comm) {
  if (int err = mpi::op_check(op, datatype); err != MPI_SUCCESS) return err;
  if (mpi::op_is_rma_only(op))
    return mpi::errhan::make_error(MPI_ERR_OP, "%s is only valid in one-sided accumulates",
                                   mpi::op_name(op.handle));
  if (count > 0 && sendbuf == recvbuf)
    return mpi::errhan::make_error(
        MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (%p); use MPI_IN_PLACE", recvbuf);
  return mpi::coll::allreduce(sendbuf, recvbuf, count, datatype,
                              mpi::coll::reduction_of(op, datatype), comm);
}

}  // namespace

int allreduce(const void* sendbuf, void* recvbuf, int count, mpi::Datatype& datatype, mpi::Op& op,
              mpi::Comm& comm) {
  return allreduce_any(sendbuf, recvbuf, count, datatype, op, comm);
}

int allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, mpi::Datatype& datatype,
                mpi::Op& op, mpi::Comm& comm) {
  return allreduce_any(sendbuf, recvbuf, count, datatype, op, comm);
}

}  // namespace stmpi::impl
