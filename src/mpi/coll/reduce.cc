// MPI_Reduce: binomial tree. At step 2^k a process whose tree rank v has
// bit k clear receives the partial result of v + 2^k (covering tree ranks
// [v + 2^k, v + 2^(k+1))) and combines it with its own (covering
// [v, v + 2^k)); a process with bit k set sends its partial result to
// v - 2^k and is done.
//
// Commutative operations use tree ranks relative to the root, so the
// result ends at the root directly. Non-commutative operations use the
// ranks themselves: each combine then joins two adjacent rank ranges in
// rank order (lower range as the left operand), rank 0 ends with
// v0 op v1 op ... op v(n-1), and sends it to the root if that is not 0.
#include <utility>

#include "binding/gen/impl.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/pt2pt/pt2pt.h"

namespace stmpi::mpi::coll {

Reduction reduction_of(const Op& op, const Datatype& type) {
  Reduction reduction;
  reduction.commutative = op.commutative;
  reduction.apply = [&op, &type](const void* in, void* inout, MPI_Count count) {
    return op_apply(op, in, inout, count, type);
  };
  return reduction;
}

int reduce(const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
           const Reduction& reduction, int root, Comm& comm) {
  const int n = comm.size;
  const int rank = comm.rank;
  const bool is_root = rank == root;
  const void* contribution = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (count == 0) return MPI_SUCCESS;
  if (n == 1) {
    if (sendbuf != MPI_IN_PLACE) copy_same(sendbuf, recvbuf, count, type);
    return MPI_SUCCESS;
  }
  const uint32_t context = comm.coll_context_id();
  const bool relative_tree = reduction.commutative;
  const int tree_rank = relative_tree ? (rank - root + n) % n : rank;
  auto actual = [&](int v) { return relative_tree ? (v + root) % n : v; };
  // The process that ends the tree with the result: the root itself, or
  // rank 0 forwarding to the root.
  const bool tree_top_is_root = relative_tree || root == 0;

  const bool result_in_place = is_root && tree_top_is_root;
  const bool has_children = tree_rank % 2 == 0 && tree_rank + 1 < n;
  ScratchBuffer own(result_in_place ? 0 : count, type);
  ScratchBuffer incoming(has_children ? count : 0, type);
  void* acc = own.get();
  void* spare = incoming.get();
  if (result_in_place) {
    acc = recvbuf;
    if (sendbuf != MPI_IN_PLACE) copy_same(sendbuf, recvbuf, count, type);
  } else {
    copy_same(contribution, acc, count, type);
  }

  for (int mask = 1; mask < n; mask <<= 1) {
    if (tree_rank & mask) {
      if (int err = pt2pt::send(acc, count, type, actual(tree_rank - mask), kTagReduce, comm,
                                context, dev::SendMode::kStandard);
          err != MPI_SUCCESS)
        return err;
      break;
    }
    if (tree_rank + mask >= n) continue;
    if (int err = pt2pt::recv(spare, count, type, actual(tree_rank + mask), kTagReduce, comm,
                              context, MPI_STATUS_IGNORE);
        err != MPI_SUCCESS)
      return err;
    if (reduction.commutative) {
      if (int err = reduction.apply(spare, acc, count); err != MPI_SUCCESS) return err;
    } else {
      // acc holds the lower ranks: spare = acc op spare, then swap roles.
      if (int err = reduction.apply(acc, spare, count); err != MPI_SUCCESS) return err;
      std::swap(acc, spare);
    }
  }

  if (tree_top_is_root) {
    if (is_root && acc != recvbuf) copy_same(acc, recvbuf, count, type);
    return MPI_SUCCESS;
  }
  if (rank == 0)
    return pt2pt::send(acc, count, type, root, kTagReduce, comm, context, dev::SendMode::kStandard);
  if (is_root)
    return pt2pt::recv(recvbuf, count, type, 0, kTagReduce, comm, context, MPI_STATUS_IGNORE);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

int reduce_any(const void* sendbuf, void* recvbuf, MPI_Count count, mpi::Datatype& datatype,
               mpi::Op& op, int root, mpi::Comm& comm) {
  if (int err = mpi::op_check(op, datatype); err != MPI_SUCCESS) return err;
  if (mpi::op_is_rma_only(op))
    return mpi::errhan::make_error(MPI_ERR_OP, "%s is only valid in one-sided accumulates",
                                   mpi::op_name(op.handle));
  const bool is_root = comm.rank == root;
  if (sendbuf == MPI_IN_PLACE && !is_root)
    return mpi::errhan::make_error(MPI_ERR_BUFFER,
                                   "MPI_IN_PLACE as sendbuf is only allowed at the root (rank %d); "
                                   "this is rank %d",
                                   root, comm.rank);
  if (is_root && count > 0 && sendbuf == recvbuf)
    return mpi::errhan::make_error(
        MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (%p); use MPI_IN_PLACE", recvbuf);
  return mpi::coll::reduce(sendbuf, recvbuf, count, datatype, mpi::coll::reduction_of(op, datatype),
                           root, comm);
}

}  // namespace

int reduce(const void* sendbuf, void* recvbuf, int count, mpi::Datatype& datatype, mpi::Op& op,
           int root, mpi::Comm& comm) {
  return reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, mpi::Datatype& datatype,
             mpi::Op& op, int root, mpi::Comm& comm) {
  return reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm);
}

}  // namespace stmpi::impl
