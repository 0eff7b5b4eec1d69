// MPI_Allgather(v) and their nonblocking and persistent forms. Blocks move
// in the receive type, between receive buffers, except in Bruck's.
//
// ring: n - 1 steps; in step i each process passes block rank - i to
//   rank + 1 and takes block rank - i - 1 from rank - 1 (also Allgatherv).
// recursive_doubling (powers of two; else bruck): log2(n) steps; in step
//   2^k a process swaps its aligned group of 2^k blocks with rank XOR 2^k.
// bruck: ceil(log2 n) steps in a packed buffer that starts with the own
//   block; step 2^k sends the first min(2^k, n - 2^k) blocks to
//   rank - 2^k and appends as many from rank + 2^k; block i then belongs
//   to rank + i.
#include <algorithm>

#include "mpi/coll/coll.h"
#include "mpi/coll/direct.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/inter.h"
#include "mpi/coll/launch.h"
#include "mpi/coll/ring.h"
#include "mpi/coll/settings.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi::coll {
namespace {

void recursive_doubling(Schedule& s, void* recvbuf, MPI_Count rc, Datatype& rt) {
  const int rank = s.rank();
  for (int mask = 1; mask < s.size(); mask <<= 1) {
    const int partner = rank ^ mask;
    s.send(block(recvbuf, rank & ~(mask - 1), rc, rt.extent), mask * rc, rt, partner);
    s.recv(block(recvbuf, partner & ~(mask - 1), rc, rt.extent), mask * rc, rt, partner);
    s.fence();
  }
}

void bruck(Schedule& s, void* recvbuf, MPI_Count rc, Datatype& rt) {
  const int n = s.size();
  const int rank = s.rank();
  const MPI_Count bb = rc * rt.size;
  Datatype& bytes = byte_type();
  char* tmp = s.scratch_bytes(n * bb);
  s.copy(block(recvbuf, rank, rc, rt.extent), rc, rt, tmp, bb, bytes);
  for (int pow = 1; pow < n; pow <<= 1) {
    const int blocks = std::min(pow, n - pow);
    s.send(tmp, blocks * bb, bytes, (rank - pow + n) % n);
    s.recv(tmp + pow * bb, blocks * bb, bytes, (rank + pow) % n);
    s.fence();
  }
  for (int i = 1; i < n; ++i)
    s.copy(tmp + i * bb, bb, bytes, block(recvbuf, (rank + i) % n, rc, rt.extent), rc, rt);
  s.fence();
}

}  // namespace

int build_allgather(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                    void* recvbuf, MPI_Count recvcount, Datatype& recvtype) {
  if (s.comm().is_inter()) {
    std::vector<Block> recvs;
    for (int r = 0; r < s.comm().peer_size(); ++r)
      recvs.push_back({block(recvbuf, r, recvcount, recvtype.extent), recvcount, &recvtype});
    return inter_allgatherv(s, sendbuf, sendcount, sendtype, recvs);
  }
  int algorithm = -1;
  if (int err = choose(settings().allgather_algorithm, "ALLGATHER",
                       {"ring", "recursive_doubling", "bruck"}, &algorithm);
      err != MPI_SUCCESS)
    return err;
  const int n = s.size();
  const int rank = s.rank();
  const bool pof2 = (n & (n - 1)) == 0;
  if (algorithm < 0) {
    const auto total = static_cast<std::size_t>(n * recvcount * recvtype.size);
    algorithm = total >= settings().allgather_short_bytes ? 0 : pof2 ? 1 : 2;
  }
  if (algorithm == 1 && !pof2) algorithm = 2;
  const bool ring_reads_input =
      algorithm == 0 && sendbuf != MPI_IN_PLACE && n > 1 && recvcount * recvtype.size != 0;
  if (sendbuf != MPI_IN_PLACE && !ring_reads_input)
    s.copy(sendbuf, sendcount, *sendtype, block(recvbuf, rank, recvcount, recvtype.extent),
           recvcount, recvtype);
  s.fence();
  if (n == 1 || recvcount * recvtype.size == 0) return MPI_SUCCESS;
  if (algorithm == 1) {
    recursive_doubling(s, recvbuf, recvcount, recvtype);
  } else if (algorithm == 2) {
    bruck(s, recvbuf, recvcount, recvtype);
  } else {
    std::vector<MPI_Count> counts(n, recvcount), displs(n);
    for (int i = 0; i < n; ++i) displs[i] = i * recvcount;
    const Block own{sendbuf, sendcount, sendtype};
    ring_allgather(s, recvbuf, counts, displs, recvtype, ring_reads_input ? &own : nullptr);
  }
  return MPI_SUCCESS;
}

int build_allgatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                     void* recvbuf, const std::vector<MPI_Count>& counts,
                     const std::vector<MPI_Count>& displs, Datatype& recvtype) {
  if (s.comm().is_inter()) {
    std::vector<Block> recvs;
    for (int r = 0; r < s.comm().peer_size(); ++r)
      recvs.push_back(
          {static_cast<char*>(recvbuf) + displs[r] * recvtype.extent, counts[r], &recvtype});
    return inter_allgatherv(s, sendbuf, sendcount, sendtype, recvs);
  }
  const Block own{sendbuf, sendcount, sendtype};
  ring_allgather(s, recvbuf, counts, displs, recvtype, sendbuf != MPI_IN_PLACE ? &own : nullptr);
  return MPI_SUCCESS;
}

int allgather(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype, void* recvbuf,
              MPI_Count recvcount, Datatype& recvtype, Comm& comm) {
  return launch(comm, Mode::kBlocking, nullptr, [&](Schedule& s) {
    return build_allgather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  });
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

using mpi::coll::Mode;

}  // namespace

int allgather_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                  MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm, Mode mode,
                  MPI_Request* request) {
  if (int err = MPI_SUCCESS;
      mode == Mode::kBlocking && mpi::coll::direct_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                                             recvcount, recvtype, comm, &err))
    return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    if (sendbuf != MPI_IN_PLACE) s.hold(sendtype);
    s.hold(&recvtype);
    return mpi::coll::build_allgather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      recvtype);
  });
}

template <class Count, class Disp>
int allgatherv_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                   const Count recvcounts[], const Disp displs[], mpi::Datatype& recvtype,
                   mpi::Comm& comm, Mode mode, MPI_Request* request) {
  std::vector<MPI_Count> counts(recvcounts, recvcounts + comm.peer_size());
  std::vector<MPI_Count> offsets(displs, displs + comm.peer_size());
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    if (sendbuf != MPI_IN_PLACE) s.hold(sendtype);
    s.hold(&recvtype);
    return mpi::coll::build_allgatherv(s, sendbuf, sendcount, sendtype, recvbuf, counts, offsets,
                                       recvtype);
  });
}
template decltype(allgatherv_any<int, int>) allgatherv_any<int, int>;
template decltype(allgatherv_any<MPI_Count, MPI_Aint>) allgatherv_any<MPI_Count, MPI_Aint>;

}  // namespace stmpi::impl
