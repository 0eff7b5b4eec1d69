// MPI_Scan and MPI_Exscan and their nonblocking and persistent forms.
//
// recursive_doubling: in step 2^k a process exchanges the reduction of
//   its aligned group of 2^k ranks with rank XOR 2^k; the partner's group
//   is adjacent, so (lower group) op (higher group) keeps operand order.
//   A lower partner's value also joins the result (the prefix so far).
// linear: a chain; rank r receives the prefix of ranks < r from r - 1,
//   combines and passes it on.
#include "mpi/coll/checks.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/launch.h"
#include "mpi/coll/settings.h"
#include "mpi/comm/comm.h"
#include "mpi/errhan/error.h"

namespace stmpi::mpi::coll {
namespace {

void recursive_doubling(Schedule& s, const void* input, void* recvbuf, MPI_Count count,
                        Datatype& type, bool exclusive) {
  const int n = s.size();
  const int rank = s.rank();
  const bool commutative = s.reduction().commutative;
  void* partial = s.scratch(count, type);
  void* tmp = s.scratch(count, type);
  s.copy(input, count, type, partial, count, type);
  if (!exclusive) s.copy(input, count, type, recvbuf, count, type);
  bool have_result = !exclusive;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int partner = rank ^ mask;
    if (partner >= n) continue;
    s.send(partial, count, type, partner);
    s.recv(tmp, count, type, partner);
    s.fence();
    if (partner < rank) {
      s.reduce(tmp, partial, count);
      if (have_result) s.reduce(tmp, recvbuf, count);
      else s.copy(tmp, count, type, recvbuf, count, type);
      have_result = true;
    } else if (commutative) {
      s.reduce(tmp, partial, count);
    } else {  // tmp = partial op tmp, then back
      s.reduce(partial, tmp, count);
      s.copy(tmp, count, type, partial, count, type);
    }
  }
  s.fence();
}

void linear(Schedule& s, const void* input, void* recvbuf, MPI_Count count, Datatype& type,
            bool exclusive) {
  const int n = s.size();
  const int rank = s.rank();
  if (!exclusive) {
    s.copy(input, count, type, recvbuf, count, type);
    if (rank > 0) {
      void* tmp = s.scratch(count, type);
      s.recv(tmp, count, type, rank - 1);
      s.fence();
      s.reduce(tmp, recvbuf, count);
    }
    if (rank < n - 1) s.send(recvbuf, count, type, rank + 1);
    s.fence();
    return;
  }
  void* mine = s.scratch(count, type);
  s.copy(input, count, type, mine, count, type);
  if (rank > 0) {
    s.recv(recvbuf, count, type, rank - 1);
    s.fence();
    s.reduce(recvbuf, mine, count);  // prefix of ranks < r, op mine
  }
  if (rank < n - 1) s.send(mine, count, type, rank + 1);
  s.fence();
}

}  // namespace

int build_scan(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
               bool exclusive) {
  int algorithm = -1;
  if (int err =
          choose(settings().scan_algorithm, "SCAN", {"recursive_doubling", "linear"}, &algorithm);
      err != MPI_SUCCESS)
    return err;
  if (count == 0) return MPI_SUCCESS;
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (algorithm == 1) linear(s, input, recvbuf, count, type, exclusive);
  else recursive_doubling(s, input, recvbuf, count, type, exclusive);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

using mpi::coll::Mode;

}  // namespace

int scan_any(const void* sendbuf, void* recvbuf, MPI_Count count, mpi::Datatype& datatype,
             mpi::Op& op, mpi::Comm& comm, bool exclusive, Mode mode, MPI_Request* request) {
  if (comm.is_inter())
    return mpi::errhan::make_error(MPI_ERR_COMM, "%s is not defined on intercommunicators",
                                   exclusive ? "MPI_Exscan" : "MPI_Scan");
  if (int err = mpi::coll::check_op(op, datatype); err != MPI_SUCCESS) return err;
  if (int err = mpi::coll::check_distinct(sendbuf, recvbuf, count); err != MPI_SUCCESS) return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    mpi::coll::hold_reduction(s, op, datatype);
    return mpi::coll::build_scan(s, sendbuf, recvbuf, count, datatype, exclusive);
  });
}

}  // namespace stmpi::impl
