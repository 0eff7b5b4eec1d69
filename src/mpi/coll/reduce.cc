// MPI_Reduce and its nonblocking and persistent forms.
//
// binomial: at step 2^k a process with bit k clear receives the partial
// result of [v + 2^k, v + 2^(k+1)) and combines it with its own
// [v, v + 2^k). Commutative ops use ranks relative to the root.
// Non-commutative ops use plain ranks, so every combine is (lower range)
// op (higher range); rank 0 ends with v0 op ... op v(n-1) and forwards it
// to the root.
// linear: the root receives every contribution and combines them in rank
// order, v0 op (v1 op (... op v(n-1))).
#include <utility>

#include "mpi/coll/checks.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/inter.h"
#include "mpi/coll/launch.h"
#include "mpi/coll/node.h"
#include "mpi/coll/op.h"
#include "mpi/coll/settings.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi::coll {
namespace {

void binomial(Schedule& s, const void* contribution, void* recvbuf, MPI_Count count, Datatype& type,
              int root) {
  const int n = s.size();
  const int rank = s.rank();
  const bool commutative = s.reduction().commutative;
  const int top = commutative ? root : 0;
  const int v = (rank - top + n) % n;
  auto actual = [&](int x) { return (x + top) % n; };
  const bool is_root = rank == root;

  void* acc = rank == top && is_root ? recvbuf : nullptr;
  void* spare = nullptr;
  const void* current = contribution;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      s.send(current, count, type, actual(v - mask));
      s.fence();
      break;
    }
    if (v + mask >= n) continue;
    if (acc == nullptr) acc = s.scratch(count, type);
    if (spare == nullptr) spare = s.scratch(count, type);
    if (current != acc) s.copy(current, count, type, acc, count, type);
    s.recv(spare, count, type, actual(v + mask));
    s.fence();
    if (commutative) {
      s.reduce(spare, acc, count);
    } else {  // acc holds the lower ranks: spare = acc op spare, then swap roles
      s.reduce(acc, spare, count);
      std::swap(acc, spare);
    }
    current = acc;
  }
  if (rank == top) {
    if (is_root) s.copy(current, count, type, recvbuf, count, type);
    else s.send(current, count, type, root);
  } else if (is_root) {
    s.recv(recvbuf, count, type, top);
  }
  s.fence();
}

void linear(Schedule& s, const void* contribution, void* recvbuf, MPI_Count count, Datatype& type,
            int root) {
  const int n = s.size();
  if (s.rank() != root) {
    s.send(contribution, count, type, root);
    s.fence();
    return;
  }
  const MPI_Aint extent = type.extent;
  void* all = s.scratch(count * n, type);
  for (int r = 0; r < n; ++r) {
    if (r == root) s.copy(contribution, count, type, block(all, r, count, extent), count, type);
    else s.recv(block(all, r, count, extent), count, type, r);
  }
  s.fence();
  s.copy(block(all, n - 1, count, extent), count, type, recvbuf, count, type);
  for (int r = n - 2; r >= 0; --r) s.reduce(block(all, r, count, extent), recvbuf, count);
  s.fence();
}

}  // namespace

int build_reduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
                 int root) {
  if (s.comm().is_inter()) return inter_reduce(s, sendbuf, recvbuf, count, type, root);
  int algorithm = -1;
  if (int err = choose(settings().reduce_algorithm, "REDUCE", {"binomial", "linear", "node_aware"},
                       &algorithm);
      err != MPI_SUCCESS)
    return err;
  const void* contribution = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (count == 0) return MPI_SUCCESS;
  if (s.size() == 1) {
    s.copy(contribution, count, type, recvbuf, count, type);
    s.fence();
    return MPI_SUCCESS;
  }
  const bool commutative = s.reduction().commutative;
  if (algorithm < 0 &&
      node_aware_auto(s.comm(), static_cast<std::size_t>(count * type.size), commutative))
    algorithm = 2;
  if (algorithm == 2 && commutative) node_reduce(s, sendbuf, recvbuf, count, type, root);
  else if (algorithm == 1) linear(s, contribution, recvbuf, count, type, root);
  else binomial(s, contribution, recvbuf, count, type, root);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

using mpi::coll::Mode;

}  // namespace

int reduce_any(const void* sendbuf, void* recvbuf, MPI_Count count, mpi::Datatype& datatype,
               mpi::Op& op, int root, mpi::Comm& comm, Mode mode, MPI_Request* request) {
  // On an intercommunicator the root group's other processes (MPI_PROC_NULL)
  // take no part: their op and datatype are not significant.
  const bool idle = comm.is_inter() && root == MPI_PROC_NULL;
  if (!idle)
    if (int err = mpi::coll::check_op(op, datatype); err != MPI_SUCCESS) return err;
  if (!comm.is_inter() && comm.rank == root)
    if (int err = mpi::coll::check_distinct(sendbuf, recvbuf, count); err != MPI_SUCCESS)
      return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    mpi::coll::hold_reduction(s, op, datatype);
    return mpi::coll::build_reduce(s, sendbuf, recvbuf, count, datatype, root);
  });
}

}  // namespace stmpi::impl
